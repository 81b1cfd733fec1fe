#include "suites/allreduce/world.hpp"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <set>

#if GPUBENCH_ALLREDUCE_MPI
#include <mpi.h>
#endif

namespace gpubench::allreduce {

namespace {
std::string host_name() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}
World* g_world = nullptr;
#if GPUBENCH_ALLREDUCE_MPI
MPI_Comm g_node_comm = MPI_COMM_NULL;  // the ranks of this node (MPI_COMM_TYPE_SHARED)
#endif
}  // namespace

World& World::init(int& argc, char**& argv) {
  if (g_world) return *g_world;
  g_world = new World();  // lives until exit: benchmarks reach it from static registrations
  World& w = *g_world;
  w.m_host = host_name();
#if GPUBENCH_ALLREDUCE_MPI
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  w.m_mpi = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &w.m_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &w.m_size);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, w.m_rank, MPI_INFO_NULL, &g_node_comm);
  MPI_Comm_rank(g_node_comm, &w.m_local_rank);
  MPI_Comm_size(g_node_comm, &w.m_local_size);
  // Nodes: their local rank 0s, numbered in world-rank order; each node learns its number.
  const int leader = w.m_local_rank == 0 ? 1 : 0;
  MPI_Allreduce(&leader, &w.m_nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Comm leaders = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, leader ? 0 : MPI_UNDEFINED, w.m_rank, &leaders);
  if (leaders != MPI_COMM_NULL) {
    MPI_Comm_rank(leaders, &w.m_node_index);
    MPI_Comm_free(&leaders);
  }
  MPI_Bcast(&w.m_node_index, 1, MPI_INT, 0, g_node_comm);
  w.m_rank_nodes.assign(static_cast<std::size_t>(w.m_size), 0);
  MPI_Allgather(&w.m_node_index, 1, MPI_INT, w.m_rank_nodes.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int sizes[2] = {w.m_local_size, -w.m_local_size};
  MPI_Allreduce(MPI_IN_PLACE, sizes, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  w.m_uniform_nodes = sizes[0] == -sizes[1];
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  std::string text(version, static_cast<std::size_t>(length));
  if (const auto cut = text.find_first_of(",\n"); cut != std::string::npos) text.resize(cut);
  w.m_library = text;
#else
  (void)argc;
  (void)argv;
#endif
  return w;
}

World& World::get() {
  if (!g_world) {
    g_world = new World();
    g_world->m_host = host_name();
  }
  return *g_world;
}

#if GPUBENCH_ALLREDUCE_MPI
void World::barrier() const {
  if (m_mpi) MPI_Barrier(MPI_COMM_WORLD);
}

double World::max(double value) const {
  if (!m_mpi) return value;
  double out = value;
  MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

int World::max(int value) const {
  if (!m_mpi) return value;
  int out = value;
  MPI_Allreduce(&value, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

std::string World::broadcast_text(const std::string& text, int root) const {
  if (!m_mpi) return text;
  int length = static_cast<int>(text.size());
  MPI_Bcast(&length, 1, MPI_INT, root, MPI_COMM_WORLD);
  std::string out = m_rank == root ? text : std::string(static_cast<std::size_t>(length), '\0');
  if (length > 0) MPI_Bcast(out.data(), length, MPI_CHAR, root, MPI_COMM_WORLD);
  return out;
}

int World::min(int value) const {
  if (!m_mpi) return value;
  int out = value;
  MPI_Allreduce(&value, &out, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return out;
}

void World::max_in_place(std::vector<double>& values) const {
  if (!m_mpi || values.empty()) return;
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_MAX,
                MPI_COMM_WORLD);
}

std::vector<double> World::gather(double value) const {
  if (!m_mpi) return {value};
  std::vector<double> out(m_rank == 0 ? static_cast<std::size_t>(m_size) : 0);
  MPI_Gather(&value, 1, MPI_DOUBLE, out.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return out;
}

std::vector<std::string> World::gather(const std::string& text) const {
  if (!m_mpi) return {text};
  const int length = static_cast<int>(text.size());
  std::vector<int> lengths(m_rank == 0 ? static_cast<std::size_t>(m_size) : 0);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(lengths.size());
  int total = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    offsets[i] = total;
    total += lengths[i];
  }
  std::vector<char> all(static_cast<std::size_t>(total) + 1);
  MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
              0, MPI_COMM_WORLD);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    out.emplace_back(all.data() + offsets[i], static_cast<std::size_t>(lengths[i]));
  }
  return out;
}

void World::broadcast(void* data, std::size_t bytes, int root) const {
  if (!m_mpi) return;
  MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, root, MPI_COMM_WORLD);
}

void World::broadcast_in_node(void* data, std::size_t bytes) const {
  if (!m_mpi) return;
  MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, 0, g_node_comm);
}

void World::finalize() {
  if (m_mpi && !m_finalized) {
    m_finalized = true;
    MPI_Finalize();
  }
}
#else
void World::barrier() const {}
double World::max(double value) const {
  return value;
}
int World::max(int value) const {
  return value;
}
std::string World::broadcast_text(const std::string& text, int) const {
  return text;
}
int World::min(int value) const {
  return value;
}
void World::max_in_place(std::vector<double>&) const {}
std::vector<double> World::gather(double value) const {
  return {value};
}
std::vector<std::string> World::gather(const std::string& text) const {
  return {text};
}
void World::broadcast(void*, std::size_t, int) const {}
void World::broadcast_in_node(void*, std::size_t) const {}
void World::finalize() {
  m_finalized = true;
}
#endif

AgreementOps World::agreement_ops() const {
  AgreementOps ops;
  ops.rank = m_rank;
  ops.size = m_size;
  ops.max = [this](int v) { return max(v); };
  ops.min = [this](int v) { return min(v); };
  ops.broadcast = [this](const std::string& text, int root) { return broadcast_text(text, root); };
  return ops;
}

CaseOutcome World::agree(const CaseOutcome& mine) const {
  return agree_outcome(mine, agreement_ops());
}

int World::nodes_spanned(Scope scope, int ranks) const {
  switch (scope) {
    case Scope::intra_node:
      return 1;
    case Scope::inter_node:
      return m_nodes;
    case Scope::world:
      break;
  }
  std::set<int> nodes;
  for (int r = 0; r < ranks && r < static_cast<int>(m_rank_nodes.size()); ++r) {
    nodes.insert(m_rank_nodes[static_cast<std::size_t>(r)]);
  }
  return std::max<int>(1, static_cast<int>(nodes.size()));
}

}  // namespace gpubench::allreduce
