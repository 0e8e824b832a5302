/* pmix_probe.c: a plain PMIx client (no MPI) for the PMIx server tests.
 * One mode per run, chosen by argv[1]; every line it prints starts with
 * "probe:" so tests can grep it. Exit status 0 means the mode's check held.
 *
 *   info              print rank, sizes, local peers/rank, app, host; fence
 *   fence-nodata      fence without data collection
 *   publish KEY VAL   publish KEY=VAL (program-wide), then fence
 *   lookup KEY        look KEY up, waiting for it (PMIX_WAIT), print it
 *   fence-die         the last rank exits 3 at once; the others fence and
 *                     must get an error (exit 0 when they do)
 *   event             the last rank exits 5 after a fence; the others wait
 *                     for PMIX_EVENT_PROC_TERMINATED naming it
 *   fence-leave       the last rank exits 0 at once (leaving cleanly); the
 *                     others fence and must get an error
 *   abort             rank 0 calls PMIx_Abort(7); the others block in a fence
 * Arguments after the mode's own are ignored (tests tag command lines).
 */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pmix_proc_t me;

static int get_u32(const pmix_proc_t* proc, const char* key, unsigned* out) {
  pmix_value_t* val = NULL;
  if (PMIx_Get(proc, key, NULL, 0, &val) != PMIX_SUCCESS || val == NULL) return 0;
  int ok = 1;
  switch (val->type) {
    case PMIX_UINT32: *out = val->data.uint32; break;
    case PMIX_UINT16: *out = val->data.uint16; break;
    case PMIX_PROC_RANK: *out = val->data.rank; break;
    default: ok = 0;
  }
  PMIX_VALUE_RELEASE(val);
  return ok;
}

static char* get_string(const pmix_proc_t* proc, const char* key) {
  pmix_value_t* val = NULL;
  if (PMIx_Get(proc, key, NULL, 0, &val) != PMIX_SUCCESS || val == NULL) return NULL;
  char* out = val->type == PMIX_STRING && val->data.string ? strdup(val->data.string) : NULL;
  PMIX_VALUE_RELEASE(val);
  return out;
}

static int fence(int collect) {
  pmix_info_t info;
  PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
  pmix_proc_t all;
  PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
  pmix_status_t rc = PMIx_Fence(&all, 1, &info, 1);
  PMIX_INFO_DESTRUCT(&info);
  return rc;
}

static unsigned job_size(void) {
  pmix_proc_t wildcard;
  PMIX_LOAD_PROCID(&wildcard, me.nspace, PMIX_RANK_WILDCARD);
  unsigned size = 0;
  get_u32(&wildcard, PMIX_JOB_SIZE, &size);
  return size;
}

static int mode_info(void) {
  pmix_proc_t wildcard;
  PMIX_LOAD_PROCID(&wildcard, me.nspace, PMIX_RANK_WILDCARD);
  unsigned size = 0, local_size = 0, local_rank = 0, node_rank = 0, appnum = 0, apps = 0, nodes = 0;
  get_u32(&wildcard, PMIX_JOB_SIZE, &size);
  get_u32(&wildcard, PMIX_LOCAL_SIZE, &local_size);
  get_u32(&me, PMIX_LOCAL_RANK, &local_rank);
  get_u32(&me, PMIX_NODE_RANK, &node_rank);
  get_u32(&me, PMIX_APPNUM, &appnum);
  get_u32(&wildcard, PMIX_JOB_NUM_APPS, &apps);
  get_u32(&wildcard, PMIX_NUM_NODES, &nodes);
  char* peers = get_string(&wildcard, PMIX_LOCAL_PEERS);
  char* host = get_string(&me, PMIX_HOSTNAME);
  /* A peer's host comes from the registration too (not from its modex). */
  pmix_proc_t last;
  PMIX_LOAD_PROCID(&last, me.nspace, size > 0 ? size - 1 : 0);
  char* last_host = get_string(&last, PMIX_HOSTNAME);
  printf("probe: nspace %s rank %u size %u local_size %u local_rank %u node_rank %u appnum %u "
         "apps %u nodes %u peers %s host %s last_host %s\n",
         me.nspace, me.rank, size, local_size, local_rank, node_rank, appnum, apps, nodes,
         peers ? peers : "?", host ? host : "?", last_host ? last_host : "?");
  fflush(stdout);
  free(peers);
  free(host);
  free(last_host);
  pmix_status_t rc = fence(1);
  printf("probe: rank %u fence %s\n", me.rank, PMIx_Error_string(rc));
  return rc == PMIX_SUCCESS ? 0 : 1;
}

static int mode_fence_nodata(void) {
  pmix_status_t rc = fence(0);
  printf("probe: rank %u fence-nodata %s\n", me.rank, PMIx_Error_string(rc));
  return rc == PMIX_SUCCESS ? 0 : 1;
}

static int mode_publish(const char* key, const char* value) {
  pmix_info_t info;
  PMIX_INFO_LOAD(&info, key, value, PMIX_STRING);
  pmix_status_t rc = PMIx_Publish(&info, 1);
  PMIX_INFO_DESTRUCT(&info);
  printf("probe: rank %u publish %s %s\n", me.rank, key, PMIx_Error_string(rc));
  return rc == PMIX_SUCCESS ? 0 : 1;
}

static int mode_lookup(const char* key) {
  pmix_pdata_t pdata;
  PMIX_PDATA_CONSTRUCT(&pdata);
  PMIX_LOAD_KEY(pdata.key, key);
  pmix_info_t info[2];
  int wait = 0, timeout = 60;
  PMIX_INFO_LOAD(&info[0], PMIX_WAIT, &wait, PMIX_INT);
  PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &timeout, PMIX_INT);
  pmix_status_t rc = PMIx_Lookup(&pdata, 1, info, 2);
  if (rc == PMIX_SUCCESS && pdata.value.type == PMIX_STRING) {
    printf("probe: rank %u lookup %s = %s from %s rank %u\n", me.rank, key, pdata.value.data.string,
           pdata.proc.nspace, pdata.proc.rank);
  } else {
    printf("probe: rank %u lookup %s failed: %s\n", me.rank, key, PMIx_Error_string(rc));
  }
  PMIX_INFO_DESTRUCT(&info[0]);
  PMIX_INFO_DESTRUCT(&info[1]);
  PMIX_PDATA_DESTRUCT(&pdata);
  return rc == PMIX_SUCCESS ? 0 : 1;
}

static int mode_fence_without_last(const char* mode, int last_exit) {
  unsigned size = job_size();
  if (me.rank + 1 == size) {
    printf("probe: rank %u leaving without the fence\n", me.rank);
    fflush(stdout);
    _exit(last_exit);
  }
  pmix_status_t rc = fence(1);
  printf("probe: rank %u %s %s\n", me.rank, mode, PMIx_Error_string(rc));
  fflush(stdout);
  return rc != PMIX_SUCCESS ? 0 : 1;
}

static volatile int event_seen = 0;
static pmix_proc_t event_proc;

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t* source, pmix_info_t info[],
                     size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
  (void)id; (void)status; (void)source; (void)results; (void)nresults;
  for (size_t i = 0; i < ninfo; ++i) {
    if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC)) event_proc = *info[i].value.data.proc;
  }
  event_seen = 1;
  if (cbfunc) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static int mode_event(void) {
  pmix_status_t code = PMIX_EVENT_PROC_TERMINATED;
  pmix_status_t rc = PMIx_Register_event_handler(&code, 1, NULL, 0, on_event, NULL, NULL);
  if (rc < 0) {
    printf("probe: rank %u cannot register the handler: %s\n", me.rank, PMIx_Error_string(rc));
    return 1;
  }
  fence(0);
  unsigned size = job_size();
  if (me.rank + 1 == size) _exit(5);
  for (int i = 0; i < 600 && !event_seen; ++i) usleep(100000);
  if (!event_seen) {
    printf("probe: rank %u saw no event\n", me.rank);
    return 1;
  }
  printf("probe: rank %u event proc-terminated rank %u\n", me.rank, event_proc.rank);
  return event_proc.rank + 1 == size ? 0 : 1;
}

static int mode_abort(void) {
  if (me.rank == 0) {
    PMIx_Abort(7, "probe asked to abort", NULL, 0);
    return 7;
  }
  fence(0);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: pmix_probe MODE [ARGS]\n");
    return 2;
  }
  pmix_status_t rc = PMIx_Init(&me, NULL, 0);
  if (rc != PMIX_SUCCESS) {
    printf("probe: PMIx_Init failed: %s\n", PMIx_Error_string(rc));
    return 2;
  }
  int result = 2;
  const char* mode = argv[1];
  if (strcmp(mode, "info") == 0) result = mode_info();
  else if (strcmp(mode, "fence-nodata") == 0) result = mode_fence_nodata();
  else if (strcmp(mode, "publish") == 0 && argc >= 4) result = mode_publish(argv[2], argv[3]);
  else if (strcmp(mode, "lookup") == 0 && argc >= 3) result = mode_lookup(argv[2]);
  else if (strcmp(mode, "fence-die") == 0) result = mode_fence_without_last(mode, 3);
  else if (strcmp(mode, "fence-leave") == 0) result = mode_fence_without_last(mode, 0);
  else if (strcmp(mode, "event") == 0) result = mode_event();
  else if (strcmp(mode, "abort") == 0) result = mode_abort();
  else fprintf(stderr, "pmix_probe: unknown mode %s\n", mode);
  fflush(stdout);
  PMIx_Finalize(NULL, 0);
  return result;
}
