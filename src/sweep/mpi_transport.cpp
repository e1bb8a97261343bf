// The MPI transport: MPI_COMM_WORLD, and the gather as two collectives (the lengths, then the
// bytes with MPI_Gatherv). Only the main thread calls MPI; the search threads never do, so
// MPI_THREAD_FUNNELED is all it asks for.
#include "sweep/mpi_transport.h"

#include <climits>

#include <mpi.h>

#include "core/error.h"

namespace gpuplan {
namespace {

class MpiTransport final : public SweepTransport {
 public:
  MpiTransport() {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      int provided = 0;
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
      owns_mpi_ = true;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    // The ranks that share memory with this one: MPI-3's portable "same node".
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &ranks_on_node_);
    MPI_Comm_free(&node);
  }
  ~MpiTransport() override {
    if (owns_mpi_) MPI_Finalize();
  }
  MpiTransport(const MpiTransport&) = delete;
  MpiTransport& operator=(const MpiTransport&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int ranks_on_node() const override { return ranks_on_node_; }

  std::vector<std::string> gather_to_root(const std::string& payload) override {
    // MPI counts are ints: 2 GiB of results per gather. A cell's result is about a kilobyte.
    GP_ASSERT(payload.size() <= static_cast<std::size_t>(INT_MAX), "a rank's results fit one MPI message");
    int length = static_cast<int>(payload.size());
    std::vector<int> lengths(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> offsets(lengths.size());
    long long total = 0;
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      offsets[i] = static_cast<int>(total);
      total += lengths[i];
    }
    GP_ASSERT(total <= INT_MAX, "the gathered results fit one MPI message");
    std::string all(static_cast<std::size_t>(total), '\0');
    MPI_Gatherv(payload.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
                MPI_COMM_WORLD);
    std::vector<std::string> out;
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      out.push_back(all.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(lengths[i])));
    }
    return out;
  }

 private:
  bool owns_mpi_ = false;
  int rank_ = 0;
  int size_ = 1;
  int ranks_on_node_ = 1;
};

}  // namespace

bool mpi_available() { return true; }

std::unique_ptr<SweepTransport> open_mpi_transport() { return std::make_unique<MpiTransport>(); }

}  // namespace gpuplan
