#include "sweep/sweep_mpi.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/error.hpp"
#include "core/parallel_for.hpp"

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
                                        const Simulate& simulate, core::Progress* progress) {
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

SpreadWork spread_over_ranks(const MpiSession& mpi, int threads) {
  const int rank = mpi.rank(), size = mpi.size();
  return [rank, size, threads](std::size_t n, const BatchJob& batch) {
    std::vector<std::size_t> mine;
    for (std::size_t i = static_cast<std::size_t>(rank); i < n; i += static_cast<std::size_t>(size)) mine.push_back(i);
    const std::vector<std::string> done = batch(mine, threads);
    K3SIM_ASSERT(done.size() == mine.size(), "a batch returned one result per index");
    // Every rank's results as one blob and their lengths, gathered on every rank.
    std::string blob;
    std::vector<std::int64_t> lengths;
    for (const auto& d : done) {
      blob += d;
      lengths.push_back(static_cast<std::int64_t>(d.size()));
    }
    const auto gather = [size](const void* data, int count, MPI_Datatype type, std::size_t unit, std::vector<char>& all) {
      std::vector<int> counts(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size), 0);
      MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
      int total = 0;
      for (std::size_t r = 0; r < counts.size(); ++r) {
        offsets[r] = total;
        total += counts[r];
      }
      all.resize(static_cast<std::size_t>(total) * unit);
      MPI_Allgatherv(data, count, type, all.data(), counts.data(), offsets.data(), type, MPI_COMM_WORLD);
      return std::pair{counts, offsets};
    };
    std::vector<char> all_lengths, all_blobs;
    const auto [length_counts, length_offsets] =
        gather(lengths.data(), static_cast<int>(lengths.size()), MPI_INT64_T, sizeof(std::int64_t), all_lengths);
    const auto [blob_counts, blob_offsets] = gather(blob.data(), static_cast<int>(blob.size()), MPI_CHAR, 1, all_blobs);
    std::vector<std::string> out(n);
    for (int r = 0; r < size; ++r) {
      const auto ru = static_cast<std::size_t>(r);
      std::size_t at = static_cast<std::size_t>(blob_offsets[ru]);
      for (int k = 0; k < length_counts[ru]; ++k) {
        std::int64_t length = 0;
        std::memcpy(&length, all_lengths.data() + (static_cast<std::size_t>(length_offsets[ru] + k)) * sizeof(std::int64_t),
                    sizeof(length));
        const std::size_t index = ru + static_cast<std::size_t>(k) * static_cast<std::size_t>(size);
        K3SIM_ASSERT(index < n, "MPI spread returned more results than jobs");
        out[index] = std::string(all_blobs.data() + at, static_cast<std::size_t>(length));
        at += static_cast<std::size_t>(length);
      }
    }
    return out;
  };
}

}  // namespace k3::sweep
