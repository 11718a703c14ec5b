// NCCL collective sweeps, one rank per GPU under mpirun (works with one rank): all-reduce, reduce-scatter,
// all-gather and all-to-all over a size sweep, reporting time, algbw and busbw with the nccl-tests
// definitions (bus_bandwidth.hpp), as JSON lines on rank 0's stdout.
//   mpirun -np <gpus> build/cuda/k3sim_nccl_sweep [--min-bytes N] [--max-bytes N] [--iters N]
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/harness/timing.hpp"
#include "kernels/nccl/bus_bandwidth.hpp"

namespace {

void check(bool ok, const char* what, const char* detail) {
  if (!ok) {
    std::fprintf(stderr, "k3sim_nccl_sweep: %s failed: %s\n", what, detail);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}
#define CUDA_OK(x) do { cudaError_t e_ = (x); check(e_ == cudaSuccess, #x, cudaGetErrorString(e_)); } while (0)
#define NCCL_OK(x) do { ncclResult_t r_ = (x); check(r_ == ncclSuccess, #x, ncclGetErrorString(r_)); } while (0)

using Collective = k3::net::CollectiveOp;

void run(Collective c, std::size_t bytes, int ranks, ncclComm_t comm, cudaStream_t stream, float* send, float* recv,
         int iters, int rank) {
  const std::size_t count = bytes / sizeof(float);  // elements in the nccl-tests "size"
  const std::size_t per_rank = count / static_cast<std::size_t>(ranks);
  auto launch = [&] {
    switch (c) {
      case Collective::allreduce: NCCL_OK(ncclAllReduce(send, recv, count, ncclFloat, ncclSum, comm, stream)); break;
      case Collective::reducescatter: NCCL_OK(ncclReduceScatter(send, recv, per_rank, ncclFloat, ncclSum, comm, stream)); break;
      case Collective::allgather: NCCL_OK(ncclAllGather(send, recv, per_rank, ncclFloat, comm, stream)); break;
      case Collective::alltoall:
        NCCL_OK(ncclGroupStart());
        for (int peer = 0; peer < ranks; ++peer) {
          NCCL_OK(ncclSend(send + peer * per_rank, per_rank, ncclFloat, peer, comm, stream));
          NCCL_OK(ncclRecv(recv + peer * per_rank, per_rank, ncclFloat, peer, comm, stream));
        }
        NCCL_OK(ncclGroupEnd());
        break;
    }
  };
  for (int i = 0; i < 3; ++i) launch();
  CUDA_OK(cudaStreamSynchronize(stream));
  cudaEvent_t start, stop;
  CUDA_OK(cudaEventCreate(&start));
  CUDA_OK(cudaEventCreate(&stop));
  std::vector<double> samples;
  for (int i = 0; i < iters; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    CUDA_OK(cudaEventRecord(start, stream));
    launch();
    CUDA_OK(cudaEventRecord(stop, stream));
    CUDA_OK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_OK(cudaEventElapsedTime(&ms, start, stop));
    double s = static_cast<double>(ms) * 1e-3, worst = 0;
    MPI_Allreduce(&s, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);  // a collective ends with its slowest rank
    samples.push_back(worst);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  const auto t = k3::kernels::summarize(samples);
  const double algbw = static_cast<double>(per_rank * ranks * sizeof(float)) / t.median_s;
  const double busbw = algbw * k3::net::busbw_factor(c, static_cast<std::size_t>(ranks));
  if (rank == 0) {
    // The columns and units of `k3sim collective --json` (bytes, time_s, algbw_gbps, busbw_gbps; GB = 1e9 B),
    // with the measurement's spread.
    std::printf("{\"op\": \"%s\", \"ranks\": %d, \"bytes\": %zu, \"time_s\": %.9g, \"p10_s\": %.9g, \"p90_s\": %.9g, "
                "\"algbw_gbps\": %.9g, \"busbw_gbps\": %.9g}\n",
                std::string(k3::kernels::nccl_tests_name(c)).c_str(), ranks, per_rank * ranks * sizeof(float),
                t.median_s, t.p10_s, t.p90_s, algbw / 1e9, busbw / 1e9);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::size_t min_bytes = 1 << 10, max_bytes = std::size_t{1} << 30;
  int iters = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const auto value = std::strtoull(argv[i + 1], nullptr, 10);
    if (flag == "--min-bytes") min_bytes = value;
    else if (flag == "--max-bytes") max_bytes = value;
    else if (flag == "--iters") iters = static_cast<int>(value);
    else check(false, "argument parsing", ("unknown flag " + flag).c_str());
  }
  int devices = 0;
  CUDA_OK(cudaGetDeviceCount(&devices));
  check(devices > 0, "device discovery", "no CUDA device");
  CUDA_OK(cudaSetDevice(rank % devices));
  ncclUniqueId id;
  if (rank == 0) NCCL_OK(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  NCCL_OK(ncclCommInitRank(&comm, ranks, id, rank));
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreate(&stream));
  float *send = nullptr, *recv = nullptr;
  CUDA_OK(cudaMalloc(&send, max_bytes));
  CUDA_OK(cudaMalloc(&recv, max_bytes));
  CUDA_OK(cudaMemset(send, 0, max_bytes));
  const std::size_t granule = sizeof(float) * static_cast<std::size_t>(ranks);
  for (Collective c : {Collective::allreduce, Collective::reducescatter, Collective::allgather, Collective::alltoall}) {
    for (std::size_t bytes = min_bytes; bytes <= max_bytes; bytes *= 4) {
      run(c, std::max(granule, bytes / granule * granule), ranks, comm, stream, send, recv, iters, rank);
    }
  }
  cudaFree(send);
  cudaFree(recv);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
