#include "sweep/sweep_mpi.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/error.hpp"

namespace k3::sweep {

bool launched_by_mpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"}) {
    if (std::getenv(v) != nullptr) return true;
  }
  return false;
}

MpiSession::MpiSession() {
  int initialised = 0;
  MPI_Initialized(&initialised);
  K3SIM_ASSERT(!initialised, "MPI initialised twice");
  MPI_Init(nullptr, nullptr);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() { MPI_Finalize(); }

std::vector<PointResult> run_points_mpi(const MpiSession& mpi, const std::vector<GridPoint>& points,
                                        const Simulate& simulate, Progress* progress) {
  // The queue: one int64 on rank 0, incremented atomically by whoever takes the next point.
  std::int64_t* counter = nullptr;
  MPI_Win win;
  const MPI_Aint window_bytes = mpi.rank() == 0 ? sizeof(std::int64_t) : 0;
  MPI_Win_allocate(window_bytes, sizeof(std::int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &counter, &win);
  if (mpi.rank() == 0) *counter = 0;
  MPI_Barrier(MPI_COMM_WORLD);

  nlohmann::json mine = nlohmann::json::array();
  const std::int64_t one = 1;
  const auto n = static_cast<std::int64_t>(points.size());
  MPI_Win_lock_all(0, win);
  for (;;) {
    std::int64_t index = 0;
    MPI_Fetch_and_op(&one, &index, MPI_INT64_T, 0, 0, MPI_SUM, win);
    MPI_Win_flush(0, win);
    if (progress) progress->set_done(static_cast<std::size_t>(std::min(index, n)));
    if (index >= n) break;
    const auto i = static_cast<std::size_t>(index);
    mine.push_back(point_to_json(evaluate_point(i, points[i], simulate)));
  }
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);

  // Gather every rank's results, serialised, on rank 0.
  const std::string text = mine.dump();
  int length = static_cast<int>(text.size());
  std::vector<int> lengths(static_cast<std::size_t>(mpi.size()));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(lengths.size(), 0);
  std::string all;
  if (mpi.rank() == 0) {
    int total = 0;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
      offsets[r] = total;
      total += lengths[r];
    }
    all.resize(static_cast<std::size_t>(total));
  }
  MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  if (mpi.rank() != 0) return {};

  std::vector<PointResult> results(points.size());
  std::vector<bool> seen(points.size(), false);
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    const auto part = nlohmann::json::parse(all.substr(static_cast<std::size_t>(offsets[r]),
                                                       static_cast<std::size_t>(lengths[r])));
    for (const auto& j : part) {
      auto p = point_from_json(j);
      K3SIM_ASSERT(p.index < points.size() && !seen[p.index], "MPI gather returned a point twice");
      p.settings = points[p.index];  // grid order, not JSON's sorted keys
      seen[p.index] = true;
      results[p.index] = std::move(p);
    }
  }
  for (bool s : seen) K3SIM_ASSERT(s, "MPI gather lost a point");
  if (progress) progress->finish();
  return results;
}

}  // namespace k3::sweep
