#pragma once
// The sweep over MPI ranks (`mpirun -n R k3sim sweep ...`): a shared counter on rank 0 (MPI-3 atomic
// fetch-and-add) is the dynamic work queue, so fast and slow points balance themselves without a master
// loop; results are gathered on rank 0 as JSON and put back in grid order. `plan` spreads its jobs with
// spread_over_ranks.
#include <vector>

#include "sweep/plan_search.hpp"
#include "sweep/sweep_runner.hpp"

namespace k3::sweep {

// True when this process was started by mpirun (OpenMPI or a PMI launcher); a plain `k3sim sweep` never
// initialises MPI.
bool launched_by_mpirun();

// Initialises MPI for its lifetime (MPI_Init / MPI_Finalize); one per process.
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  int rank_ = 0;
  int size_ = 1;
};

// Every rank calls it with the same points. Rank 0 returns all results in grid order, others an empty
// vector. `progress` (rank 0 only, may be null) counts points handed out.
std::vector<PointResult> run_points_mpi(const MpiSession& mpi, const std::vector<GridPoint>& points,
                                        const Simulate& simulate, core::Progress* progress);

// `plan` under mpirun: job i runs on rank i % size (on `threads` threads there) and every rank gets every
// result, in index order (MPI_Allgatherv), so that every rank takes the same next step of the search.
SpreadWork spread_over_ranks(const MpiSession& mpi, int threads);

}  // namespace k3::sweep
