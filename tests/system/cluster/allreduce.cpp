// slipway_test_mpi_allreduce: a minimal Open MPI program for the system tests.
// Every rank contributes rank+1 to an MPI_Allreduce and prints
// "rank R size N host H sum=S ok|BAD" (ok when S == N*(N+1)/2).
#include <mpi.h>
#include <unistd.h>

#include <cstdio>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int mine = rank + 1;
  int sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const bool ok = sum == size * (size + 1) / 2;
  std::printf("rank %d size %d host %s sum=%d %s\n", rank, size, host, sum, ok ? "ok" : "BAD");
  MPI_Finalize();
  return ok ? 0 : 1;
}
