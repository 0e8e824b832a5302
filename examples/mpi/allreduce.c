/* allreduce.c: the smallest real MPI program: MPI_Init, one Allreduce over
 * MPI_COMM_WORLD, MPI_Finalize. Each rank prints one line saying who it is
 * (rank, size, application number, host) and whether the sum came out
 * right; the exit status is 0 only when it did. Run it under slipway with
 * framework = "mpi" (examples/mpi.toml): no mpirun, no srun --mpi.
 *
 * With --timing, each rank also prints when it entered MPI_Init and left
 * MPI_Finalize (CLOCK_REALTIME, microseconds), for `slipway-bench pmix`. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static long long now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

int main(int argc, char** argv) {
  int timing = argc > 1 && strcmp(argv[1], "--timing") == 0;
  long long start_us = now_us();
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
    fprintf(stderr, "allreduce: MPI_Init failed\n");
    return 2;
  }
  int rank = 0, size = 0, flag = 0, name_length = 0;
  int* appnum = NULL;
  char host[MPI_MAX_PROCESSOR_NAME] = {0};
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
  MPI_Get_processor_name(host, &name_length);

  long mine = rank + 1, sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  long expected = (long)size * (size + 1) / 2;
  printf("allreduce: rank %d of %d app %d on %s: sum %ld %s\n", rank, size,
         flag && appnum ? *appnum : -1, host, sum, sum == expected ? "ok" : "WRONG");
  fflush(stdout);
  MPI_Finalize();
  if (timing) {
    printf("allreduce: timing rank %d start_us %lld end_us %lld\n", rank, start_us, now_us());
    fflush(stdout);
  }
  return sum == expected ? 0 : 1;
}
