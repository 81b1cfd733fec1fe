// The dataloader suite's benchmark bodies and their registration with Google Benchmark (which
// cases a profile runs is in dataloader_sweep.cpp).
#include "suites/dataloader/dataloader_cases.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <thread>

#include <time.h>
#include <unistd.h>

#include "suites/dataloader/cache_control.hpp"
#include "suites/dataloader/dataloader_cases_detail.hpp"
#include "suites/dataloader/dataset_reader.hpp"
#include "suites/dataloader/device_staging.hpp"
#include "suites/dataloader/hdf5_io.hpp"
#include "suites/dataloader/image_gpu.hpp"
#include "suites/dataloader/image_pipeline.hpp"
#include "suites/dataloader/jpeg_codec.hpp"
#include "suites/dataloader/pipeline.hpp"
#include "suites/dataloader/text_codec.hpp"
#include "suites/dataloader/training_step.hpp"
#include "util/clock.hpp"
#include "util/error.hpp"

namespace gpubench::dataloader {
namespace {

using detail::image_name;
using detail::image_spec_for;
using detail::ImageCase;
using detail::k_image_bytes;
using detail::k_parse_iterations_per_pass;
using detail::k_seed;
using detail::make_plan;
using detail::read_name;
using detail::ReadCase;
using detail::spec_for;
using suite::Profile;

const SuiteConfig* g_config = nullptr;  // set by register_dataloader_benchmarks, read by bodies
std::map<std::string, Dataset> g_datasets;
std::map<std::string, SequentialReadCeiling> g_seq_ceiling;

const Dataset& dataset_for(const DatasetSpec& spec) {
  auto it = g_datasets.find(spec.directory_name());
  if (it != g_datasets.end()) return it->second;
  Dataset d = ensure_dataset(g_config->data_dir, spec);
  return g_datasets.emplace(spec.directory_name(), std::move(d)).first->second;
}

const SequentialReadCeiling& seq_ceiling(const Dataset& d, const DatasetReader& reader) {
  auto it = g_seq_ceiling.find(d.dir.string());
  if (it != g_seq_ceiling.end()) return it->second;
  return g_seq_ceiling[d.dir.string()] = sequential_read_ceiling(reader.files());
}

std::string error_text(const Error& e) {
  return format_error_message(e.what_failed(), e.why(), e.fix());
}

// Runs a benchmark body; errors become Google Benchmark data (a failed or skipped run).
template <class Body>
void guarded(benchmark::State& state, Body&& body) {
  try {
    body();
  } catch (const Error& e) {
    suite::fail(state, error_text(e));
  } catch (const std::exception& e) {
    suite::fail(state, e.what());
  }
}

// The GPU-busy step's counters (its own times: CUDA events, the steady clock when emulated) and
// the H2D copies', over `wall` seconds of epochs of `batch` samples a batch; appends what the
// label says about them to `label`. Either may be null.
void add_step_and_copy_results(benchmark::State& state, const TrainingStep* step,
                               const H2DSink* sink, std::size_t batch, double wall,
                               std::string& label) {
  if (step) {
    const double step_s = step->step_seconds();
    const double steps = static_cast<double>(std::max<std::uint64_t>(1, step->steps()));
    state.counters["gpu_idle_fraction"] = gpu_idle_fraction(step_s, wall);
    state.counters["gpu_step_ms"] = step_s / steps * 1e3;
    state.counters["feed_limit_samples_per_s"] = feed_limit_samples_per_s(batch, step_s / steps);
    label += (label.empty() ? "" : " ") + step->label();
  }
  if (sink && sink->copy_seconds() > 0) {
    state.counters["h2d_GB_per_s"] = sink->copied_bytes() / sink->copy_seconds() / 1e9;
    // The GPU (CUDA ordinal; gpubench.devices names its UUID) and how the copies ran.
    char text[96];
    std::snprintf(text, sizeof text, "device_index=%d transfers_per_batch=%.0f", staging_device(),
                  sink->transfers_per_batch());
    label += (label.empty() ? "" : " ") + std::string(text);
  }
}

void bm_pipeline(benchmark::State& state, const ReadCase& c) {
  guarded(state, [&] {
    if (c.path == ReadPath::uring && !uring_unavailable_reason().empty()) {
      suite::skip(state, "io_uring unavailable (" + uring_unavailable_reason() + ")");
      return;
    }
    if (c.h2d && !cuda_unavailable_reason().empty()) {
      suite::skip(state, cuda_unavailable_reason());
      return;
    }
    // libhdf5 is loaded at run time (hdf5_api.hpp): without it, the reason says where it was
    // sought.
    if (c.format == Format::hdf5 && !hdf5_unavailable_reason().empty()) {
      suite::skip(state, hdf5_unavailable_reason());
      return;
    }
    const DatasetSpec spec = spec_for(*g_config, c.format, c.record_bytes);
    const Dataset& dataset = dataset_for(spec);
    DatasetReader reader(dataset, c.path);
    PipelineConfig pc;
    pc.workers = c.workers;
    pc.batch_size = c.batch;
    pc.order = c.order;
    pc.order_seed = k_seed;
    {
      // Validation before timing: every sample once, equal to the generator's (also a warm-up).
      Pipeline check(reader, pc);
      VerifySink verify(spec);
      check.run(&verify);
      if (verify.mismatches() || verify.missing() || verify.duplicates()) {
        suite::fail(state, "decoded samples differ from the generator: " + verify.first_mismatch() +
                               " (" + std::to_string(verify.mismatches()) + " wrong, " +
                               std::to_string(verify.missing()) + " missing, " +
                               std::to_string(verify.duplicates()) + " duplicated)");
        return;
      }
    }
    pc.step = std::chrono::microseconds(c.step_us);
    pc.memory = c.memory;
    pc.max_batches = c.max_batches;
    // GPU busy: a GEMM step fed through pinned staging and H2D copies; without a GPU the emulated
    // step, whose label says why.
    const std::string no_gemm = c.gpu_step ? gemm_step_unavailable_reason() : std::string();
    const bool gemm = c.gpu_step && no_gemm.empty();
    if (gemm) pc.memory = HostMemory::pinned;
    Pipeline pipeline(reader, pc);
    std::unique_ptr<H2DSink> sink;
    if (c.h2d || gemm) sink = make_h2d_sink(c.batch, c.record_bytes);
    std::unique_ptr<TrainingStep> step;
    if (gemm) step = make_gemm_step(*sink, pc.step);
    if (c.gpu_step && !gemm) step = std::make_unique<EmulatedStep>(pc.step, no_gemm);
    double ceiling = 0;
    double ceiling_resident = 0;
    if (c.cold) {
      const auto& sc = seq_ceiling(dataset, reader);
      ceiling = sc.mb_per_s;
      ceiling_resident = sc.resident_fraction_before;
    } else {
      // Measured now, on this dataset's files, so the fraction compares like with like.
      ceiling = page_cache_memcpy_mb_per_s(reader.files(), c.workers, c.batch * c.record_bytes);
    }
    std::uint64_t samples = 0;
    std::uint64_t bytes = 0;
    double wall = 0;
    double stall = 0;
    double resident = 0;
    std::vector<double> latencies;
    for (auto _ : state) {
      if (c.cold) {
        state.PauseTiming();
        resident += evict_from_page_cache(reader.files()).resident_fraction();
        state.ResumeTiming();
      }
      PipelineResult r = pipeline.run(sink.get(), step.get());
      state.SetIterationTime(r.wall_s);
      samples += r.samples;
      bytes += r.bytes;
      wall += r.wall_s;
      stall += r.stall_s;
      latencies.insert(latencies.end(), r.batch_latency_us.begin(), r.batch_latency_us.end());
    }
    const double iters =
        static_cast<double>(std::max<benchmark::IterationCount>(1, state.iterations()));
    const double mbps = wall > 0 ? static_cast<double>(bytes) / wall / 1e6 : 0;
    state.counters["samples_per_s"] = wall > 0 ? static_cast<double>(samples) / wall : 0;
    state.counters["MB_per_s"] = mbps;
    state.counters["batch_p50_us"] = percentile(latencies, 50);
    state.counters["batch_p99_us"] = percentile(latencies, 99);
    state.counters["stall_fraction"] = wall > 0 ? stall / wall : 0;
    state.counters["ceiling_MB_per_s"] = ceiling;
    // File bytes consumed per second (text formats: before parsing) against the ceiling, which
    // moves the same files: like with like for every format. An epoch cut short by max_batches
    // consumed its share of the files.
    const double epochs = static_cast<double>(samples) / static_cast<double>(spec.samples);
    const double input_mbps =
        wall > 0 ? static_cast<double>(dataset.total_bytes()) * epochs / wall / 1e6 : 0;
    state.counters["input_MB_per_s"] = input_mbps;
    state.counters["fraction_of_ceiling"] = ceiling > 0 ? input_mbps / ceiling : 0;
    std::string label;
    if (c.cold) {
      state.counters["resident_fraction"] = resident / iters;
      label = "cold: evicted with posix_fadvise(DONTNEED)";
      if (resident / iters > 0.05 || ceiling_resident > 0.05) {
        label = "cold requested but the kernel kept " +
                std::to_string(static_cast<int>(100 * resident / iters)) +
                "% of the dataset resident: figures are partly page-cache reads";
      }
    }
    add_step_and_copy_results(state, step.get(), sink.get(), c.batch, wall, label);
    if (!label.empty()) state.SetLabel(label);
  });
}

// The checking epoch of a JPEG dataset, run once per process and dataset (by directory) by its
// first case per read path, and its verdict (empty: correct) for the dataset's other cases on
// that path: every image of a full epoch, on the sweep's largest worker count, through that read
// path and the first case's order (the mmap case checks its own mapped reads).
const std::string& image_dataset_problem(const Dataset& dataset, const ImageSteps& steps,
                                         const ImageCase& c) {
  static std::map<std::string, std::string> verdicts;  // benchmark thread only
  const std::string key = dataset.dir.string() + "|" + to_string(c.path);
  if (auto it = verdicts.find(key); it != verdicts.end()) return it->second;
  DatasetReader reader(dataset, c.path);
  ImageCheck check;
  ImageSource source(reader, steps, k_seed, &check);
  PipelineConfig pc;
  pc.workers = detail::image_check_workers(*g_config);
  pc.batch_size = c.batch;
  pc.order = c.order;
  pc.order_seed = k_seed;
  pc.source = &source;
  Pipeline pipeline(reader, pc);
  return verdicts[key] = check_image_epoch(pipeline, dataset.spec, check);
}

// The image pipeline: JPEG read, CPU decode, random resized crop, flip, normalise, bf16.
void bm_image(benchmark::State& state, const ImageCase& c) {
  guarded(state, [&] {
    std::string reason;
    const JpegCodec* codec = JpegCodec::get(&reason);
    if (!codec) {
      suite::skip(state, reason);
      return;
    }
    if (c.path == ReadPath::uring && !uring_unavailable_reason().empty()) {
      suite::skip(state, "io_uring unavailable (" + uring_unavailable_reason() + ")");
      return;
    }
    const DatasetSpec spec = image_spec_for(*g_config, c);
    const Dataset& dataset = dataset_for(spec);
    DatasetReader reader(dataset, c.path);
    const CpuImageSteps steps(*codec, spec);
    // Before timing, once per dataset and process (image_dataset_problem): every image once,
    // decoded within the codec's tolerance of the generator's, sampled augmentations within one
    // bf16 step of the reference.
    if (const std::string& bad = image_dataset_problem(dataset, steps, c); !bad.empty()) {
      suite::fail(state, "image pipeline output is wrong: " + bad);
      return;
    }
    PipelineConfig pc;
    pc.workers = c.workers;
    pc.batch_size = c.batch;
    pc.order = c.order;
    pc.order_seed = k_seed;
    ImageSource source(reader, steps, k_seed);
    pc.source = &source;
    {
      // The warm-up: a batch per worker through the same source sizes the buffers each worker
      // keeps (no image buffer is allocated in a timed epoch; the slots are touched when made).
      PipelineConfig warm = pc;
      warm.max_batches = detail::image_warmup_batches(c);
      Pipeline(reader, warm).run();
      source.take_work();  // the warm-up's, not timed
    }
    // Each timed epoch: image_case_batches of the epoch's order (a random subset when shuffled),
    // about constant time across worker counts; the counters below count what was delivered.
    pc.max_batches = detail::image_case_batches(*g_config, c, spec);
    // GPU busy (step_us > 0), as the train cases: a GEMM step fed through pinned staging and H2D
    // copies of the augmented batches; without a GPU the emulated sleep, whose label says why.
    const std::chrono::microseconds step_time(c.step_us);
    const std::string no_gemm = c.step_us > 0 ? gemm_step_unavailable_reason() : std::string();
    const bool gemm = c.step_us > 0 && no_gemm.empty();
    if (gemm) pc.memory = HostMemory::pinned;
    Pipeline pipeline(reader, pc);
    std::unique_ptr<H2DSink> sink;
    if (gemm) sink = make_h2d_sink(c.batch, k_augmented_image_bytes);
    std::unique_ptr<TrainingStep> step;
    if (gemm) step = make_gemm_step(*sink, step_time);
    if (c.step_us > 0 && !gemm) step = std::make_unique<EmulatedStep>(step_time, no_gemm);
    std::uint64_t samples = 0;
    std::uint64_t bytes = 0;
    double wall = 0;
    double stall = 0;
    double cpu = 0;
    double resident = 0;
    std::vector<double> latencies;
    for (auto _ : state) {
      if (c.cold) {
        state.PauseTiming();
        resident += evict_from_page_cache(reader.files()).resident_fraction();
        state.ResumeTiming();
      }
      const double cpu0 = process_cpu_seconds();
      PipelineResult r = pipeline.run(sink.get(), step.get());
      cpu += process_cpu_seconds() - cpu0;
      state.SetIterationTime(r.wall_s);
      samples += r.samples;
      bytes += r.bytes;
      wall += r.wall_s;
      stall += r.stall_s;
      latencies.insert(latencies.end(), r.batch_latency_us.begin(), r.batch_latency_us.end());
    }
    const ImageWork work = source.take_work();
    const double iters =
        static_cast<double>(std::max<benchmark::IterationCount>(1, state.iterations()));
    const double per_s = wall > 0 ? 1 / wall : 0;
    state.counters["images_per_s"] = static_cast<double>(samples) * per_s;
    state.counters["samples_per_s"] = static_cast<double>(samples) * per_s;
    // Augmented bf16 images + labels delivered, and the JPEG bytes read to make them.
    state.counters["MB_per_s"] = static_cast<double>(bytes) * per_s / 1e6;
    state.counters["input_MB_per_s"] = static_cast<double>(work.jpeg_bytes) * per_s / 1e6;
    state.counters["cpu_cores_used"] = cpu * per_s;
    state.counters["decode_fraction"] = work.decode_fraction();
    state.counters["batch_p50_us"] = percentile(latencies, 50);
    state.counters["batch_p99_us"] = percentile(latencies, 99);
    state.counters["stall_fraction"] = wall > 0 ? stall / wall : 0;
    std::string label;
    if (c.cold) {
      state.counters["resident_fraction"] = resident / iters;
      label = resident / iters > 0.05
                  ? "cold requested but the kernel kept " +
                        std::to_string(static_cast<int>(100 * resident / iters)) +
                        "% of the dataset resident: figures are partly page-cache reads"
                  : "cold: evicted with posix_fadvise(DONTNEED)";
    }
    add_step_and_copy_results(state, step.get(), sink.get(), c.batch, wall, label);
    if (!label.empty()) state.SetLabel(label);
  });
}

// GPU decode (image_gpu.hpp): skips with the first missing piece (GPU, libnvjpeg, libturbojpeg)
// before the dataset is generated.
void bm_image_nvjpeg(benchmark::State& state, const NvjpegCase& c) {
  guarded(state, [&] { run_nvjpeg_case(state, c, dataset_for); });
}

void bm_memcpy_ceiling(benchmark::State& state, int threads) {
  guarded(state, [&] {
    double mbps = 0;
    for (auto _ : state) {
      const double t0 = monotonic_seconds();
      mbps = memcpy_ceiling_mb_per_s(threads, 64u << 20, 1);
      state.SetIterationTime(monotonic_seconds() - t0);
    }
    state.counters["MB_per_s"] = mbps;
  });
}

void bm_seq_read_ceiling(benchmark::State& state, std::size_t record_bytes) {
  guarded(state, [&] {
    const Dataset& d = dataset_for(spec_for(*g_config, Format::raw, record_bytes));
    DatasetReader reader(d, ReadPath::pread);
    SequentialReadCeiling sc;
    for (auto _ : state) {
      sc = sequential_read_ceiling(reader.files(), 1);
      state.SetIterationTime(static_cast<double>(d.total_bytes()) / std::max(sc.mb_per_s, 1e-9) /
                             1e6);
    }
    state.counters["MB_per_s"] = sc.mb_per_s;
    state.counters["resident_fraction"] = sc.resident_fraction_before;
  });
}

// Single-core parse rate of in-memory text, the parser's own figure (no I/O).
void bm_parse(benchmark::State& state, Format format, std::size_t record_bytes) {
  guarded(state, [&] {
    const std::uint64_t samples = std::max<std::uint64_t>(1, (8u << 20) / (4 * record_bytes));
    std::string text;
    std::vector<std::uint8_t> pixels(record_bytes);
    for (std::uint64_t i = 0; i < samples; ++i) {
      fill_sample_pixels(k_seed, i, pixels);
      if (format == Format::csv) {
        append_csv_record(text, sample_label(k_seed, i), pixels);
      } else {
        append_jsonl_record(text, sample_label(k_seed, i), pixels);
      }
    }
    std::vector<std::uint8_t> out(samples * record_bytes);
    std::vector<std::uint32_t> labels(samples);
    auto parse_all = [&] {
      const char* p = text.data();
      const char* end = p + text.size();
      for (std::uint64_t i = 0; i < samples; ++i) {
        auto dest = std::span<std::uint8_t>(out.data() + i * record_bytes, record_bytes);
        p += format == Format::csv ? parse_csv_record(p, end, labels[i], dest)
                                   : parse_jsonl_record(p, end, labels[i], dest);
      }
    };
    parse_all();
    for (std::uint64_t i = 0; i < samples; ++i) {
      fill_sample_pixels(k_seed, i, pixels);
      if (labels[i] != sample_label(k_seed, i) ||
          std::memcmp(out.data() + i * record_bytes, pixels.data(), record_bytes) != 0) {
        suite::fail(state, "parsed sample " + std::to_string(i) + " differs from the generator's");
        return;
      }
    }
    double seconds = 0;
    double cpu_seconds = 0;
    for (auto _ : state) {
      const double c0 = thread_cpu_seconds();
      const double t0 = monotonic_seconds();
      parse_all();
      cpu_seconds += thread_cpu_seconds() - c0;
      benchmark::DoNotOptimize(out.data());
      const double dt = monotonic_seconds() - t0;
      seconds += dt;
      state.SetIterationTime(dt);
    }
    const double n = static_cast<double>(state.iterations());
    state.counters["input_MB_per_s"] = static_cast<double>(text.size()) * n / seconds / 1e6;
    // Per core: on a shared machine the wall-clock rate includes time the thread was not running.
    state.counters["input_MB_per_core_s"] =
        static_cast<double>(text.size()) * n / cpu_seconds / 1e6;
    state.counters["MB_per_s"] =
        static_cast<double>(samples * (record_bytes + 4)) * n / seconds / 1e6;
    state.counters["samples_per_s"] = static_cast<double>(samples) * n / seconds;
  });
}

// Generator write rate (including fsync) of a raw dataset of `mib` MiB, into the data directory.
void bm_generate(benchmark::State& state, std::uint64_t mib) {
  guarded(state, [&] {
    DatasetSpec s = spec_for(*g_config, Format::raw, k_image_bytes);
    s.samples = std::max<std::uint64_t>(1, (mib << 20) / k_image_bytes);
    s.seed = k_seed + 1;
    check_free_space(g_config->data_dir, s.estimated_disk_bytes());
    const auto dir = g_config->data_dir / ("generate-bench-" + std::to_string(::getpid()));
    std::uint64_t bytes = 0;
    double seconds = 0;
    for (auto _ : state) {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
      const double t0 = monotonic_seconds();
      Dataset d = generate_dataset(dir, s);
      const double dt = monotonic_seconds() - t0;
      state.SetIterationTime(dt);
      seconds += dt;
      bytes += d.total_bytes();
      std::filesystem::remove_all(dir, ec);
    }
    state.counters["MB_per_s"] = seconds > 0 ? static_cast<double>(bytes) / seconds / 1e6 : 0;
  });
}

}  // namespace

void register_dataloader_benchmarks(const SuiteConfig& config) {
  static SuiteConfig stored;
  stored = config;
  g_config = &stored;
  const int iters = config.iterations;
  // Every case times its own samples (wall or CPU clocks around the work), in milliseconds.
  constexpr benchmark::TimeUnit ms = benchmark::kMillisecond;
  for (int w : config.workers) {
    suite::register_timed(
        "dataloader/ceiling/kind:memcpy/threads:" + std::to_string(w), iters,
        [w](benchmark::State& state) { bm_memcpy_ceiling(state, w); }, ms);
  }
  for (std::size_t rb : config.record_sizes) {
    suite::register_timed(
        "dataloader/ceiling/kind:seq_read/format:raw/record_bytes:" + std::to_string(rb), iters,
        [rb](benchmark::State& state) { bm_seq_read_ceiling(state, rb); }, ms);
  }
  const detail::Plan plan = make_plan(config);
  for (const auto& [kind, c] : plan.reads) {
    suite::register_timed(
        read_name(kind, c), iters,
        [read_case = c](benchmark::State& state) { bm_pipeline(state, read_case); }, ms);
  }
  for (const ImageCase& c : plan.images) {
    suite::register_timed(
        image_name(c), detail::image_iterations(config),
        [image_case = c](benchmark::State& state) { bm_image(state, image_case); }, ms);
  }
  for (const NvjpegCase& c : detail::nvjpeg_cases(config)) {
    suite::register_timed(
        nvjpeg_case_name(c), c.iterations,
        [image_case = c](benchmark::State& state) { bm_image_nvjpeg(state, image_case); }, ms);
  }
  for (Format f : {Format::csv, Format::jsonl}) {
    suite::register_timed(
        "dataloader/parse/format:" + std::string(to_string(f)) +
            "/record_bytes:" + std::to_string(k_image_bytes),
        k_parse_iterations_per_pass * iters,
        [f](benchmark::State& state) { bm_parse(state, f, k_image_bytes); }, ms);
  }
  // The generator's write rate; 1 GiB only in the full profile (it writes and deletes 1 GiB).
  const std::uint64_t mib = config.profile == Profile::full       ? 1024
                            : config.profile == Profile::standard ? 256
                                                                  : 32;
  suite::register_timed(
      "dataloader/generate/format:raw/MiB:" + std::to_string(mib), 1,
      [mib](benchmark::State& state) { bm_generate(state, mib); }, ms);
}

std::vector<std::string> availability_notes() {
  std::vector<std::string> notes;
  if (const std::string u = uring_unavailable_reason(); !u.empty()) {
    notes.push_back("io_uring cases: skipped: " + u);
  }
  if (const std::string g = cuda_unavailable_reason(); !g.empty()) {
    notes.push_back("h2d cases: skipped: " + g);
  }
  notes.push_back(gemm_step_note());
  if (const std::string n = nvjpeg_unavailable_reason(); !n.empty()) {
    notes.push_back("decode:nvjpeg cases: skipped: " + n);
  }
  if (std::string jpeg; JpegCodec::get(&jpeg) == nullptr) {
    notes.push_back("decode:cpu image cases: skipped: " + jpeg);
  }
  if (const std::string h5 = hdf5_library_text(); !h5.empty()) {
    notes.push_back("hdf5 cases: " + h5);
  } else {
    notes.push_back("hdf5 cases: skipped: " + hdf5_unavailable_reason());
  }
  return notes;
}

}  // namespace gpubench::dataloader
