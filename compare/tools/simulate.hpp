// Seeded generators of simulated benchmark samples (fixtures for the statistics, not
// measurements), shared by compare/tools/verdict_sim.cpp (the tables in compare/README.md) and the
// property tests in tests/compare/test_properties.cpp.
//
// A sample is exp(mu + run_offset + noise): `noise` is the within-run noise on the log scale, with
// the spread of a lognormal of coefficient of variation `cv`; `run_offset` ~ N(0, run_sd^2) is
// shared by every repetition of one run (machine state), so repetitions understate run-to-run
// noise exactly as on real machines.
#pragma once

#include <cmath>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

namespace gpubench::compare::sim {

enum class Shape {
  lognormal,     // normal noise on the log scale
  heavy_tailed,  // Student t with 3 df on the log scale, scaled to the same sd
  contaminated,  // lognormal, and each repetition is 3x slower with probability 5%
};

inline const char* to_string(Shape shape) {
  switch (shape) {
    case Shape::lognormal:
      return "lognormal";
    case Shape::heavy_tailed:
      return "heavy-tailed (log-t3)";
    case Shape::contaminated:
      return "5% 3x outliers";
  }
  return "?";
}

// sd on the log scale of a lognormal with coefficient of variation `cv`.
inline double log_sd(double cv) {
  return std::sqrt(std::log1p(cv * cv));
}

class Generator {
 public:
  explicit Generator(std::uint64_t seed) : m_gen(seed) {}

  // One run of `n` repetitions around `level`.
  std::vector<double> run(double level, double cv, std::size_t n, Shape shape, double run_sd = 0) {
    double sd = log_sd(cv);
    double offset = run_sd > 0 ? run_sd * m_normal(m_gen) : 0.0;
    std::vector<double> out(n);
    for (double& v : out) {
      double z = 0;
      if (shape == Shape::heavy_tailed) {
        z = m_t3(m_gen) / std::sqrt(3.0);  // t3 has variance 3
      } else {
        z = m_normal(m_gen);
      }
      v = level * std::exp(offset + sd * z);
      if (shape == Shape::contaminated && m_uniform(m_gen) < 0.05) v *= 3.0;
    }
    return out;
  }

  std::mt19937_64& engine() { return m_gen; }

 private:
  std::mt19937_64 m_gen;
  std::normal_distribution<double> m_normal{0.0, 1.0};
  std::student_t_distribution<double> m_t3{3.0};
  std::uniform_real_distribution<double> m_uniform{0.0, 1.0};
};

}  // namespace gpubench::compare::sim
