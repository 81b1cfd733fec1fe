// The process group the suite runs in: MPI_COMM_WORLD under a launcher (mpirun, srun), or one
// process on its own. Built without MPI (GPUBENCH_MPI=OFF or no MPI found) it is always one rank.
//
// Every rank registers and runs the same benchmarks in the same order with fixed iteration counts,
// so their collective calls line up; decisions that could differ between ranks (a GPU present, a
// case runnable) are agreed with min()/max() before they are acted on. Only rank 0 writes the
// Google Benchmark output; the others print nothing.
//
// Failure: a case's outcome is agreed across ranks (agree(): every rank learns the worst outcome
// and its reason) before anyone moves on, so a failure on one rank is a failure of the case on
// all. MPI's default error handler aborts the job on an MPI error, and a rank that dies makes the
// launcher stop the others, so a broken run ends with a non-zero exit instead of hanging.
#pragma once

#include <string>
#include <vector>

#include "suites/allreduce/case_outcome.hpp"
#include "suites/allreduce/collectives.hpp"

namespace gpubench::allreduce {

class World {
 public:
  // Initialises MPI (when built with it) once; later calls return the same object.
  static World& init(int& argc, char**& argv);
  // After init(); a one-rank world when init() was never called.
  static World& get();

  World(const World&) = delete;
  World& operator=(const World&) = delete;

  bool mpi() const noexcept { return m_mpi; }
  int rank() const noexcept { return m_rank; }
  int size() const noexcept { return m_size; }
  int local_rank() const noexcept { return m_local_rank; }  // rank within its node
  int local_size() const noexcept { return m_local_size; }
  int node_count() const noexcept { return m_nodes; }
  int node_index() const noexcept { return m_node_index; }  // 0 .. node_count()-1, by first rank
  // Every node has the same number of ranks (intra-node series need that).
  bool uniform_nodes() const noexcept { return m_uniform_nodes; }
  // How many nodes a series' communicator spans: the nodes of world ranks 0 .. ranks-1 (world), 1
  // (intra_node: each node's ranks among themselves), node_count() (inter_node).
  int nodes_spanned(Scope scope, int ranks) const;
  const std::string& host() const noexcept { return m_host; }
  // "Open MPI v4.1.4, ..." (first line of MPI_Get_library_version), or "none".
  const std::string& library() const noexcept { return m_library; }

  void barrier() const;
  double max(double value) const;
  int max(int value) const;
  int min(int value) const;
  // `root`'s text on every rank.
  std::string broadcast_text(const std::string& text, int root) const;
  // The outcome every rank agrees on (case_outcome.hpp): MPI_Allreduce MAX of the statuses, MIN of
  // the ranks with the worst one, MPI_Bcast of that rank's reason. Every rank must call it.
  CaseOutcome agree(const CaseOutcome& mine) const;
  // The collective steps agree() uses, for case_runner.hpp.
  AgreementOps agreement_ops() const;
  // Element-wise maximum across ranks, result on every rank.
  void max_in_place(std::vector<double>& values) const;
  // Every rank's value, in rank order, on rank 0 (empty elsewhere).
  std::vector<double> gather(double value) const;
  std::vector<std::string> gather(const std::string& text) const;
  // Copies `bytes` from `root` to every rank.
  void broadcast(void* data, std::size_t bytes, int root) const;
  // Copies `bytes` from local rank 0 to every rank of the same node.
  void broadcast_in_node(void* data, std::size_t bytes) const;
  // MPI_Finalize (when MPI was initialised). Idempotent.
  void finalize();

 private:
  World() = default;
  bool m_mpi = false;
  bool m_finalized = false;
  int m_rank = 0;
  int m_size = 1;
  int m_local_rank = 0;
  int m_local_size = 1;
  int m_nodes = 1;
  int m_node_index = 0;
  bool m_uniform_nodes = true;
  std::vector<int> m_rank_nodes;  // node index of every world rank
  std::string m_host;
  std::string m_library = "none";
};

}  // namespace gpubench::allreduce
