// Allocation thresholds for the hot paths: each workload's heap allocations (malloc, calloc, realloc,
// aligned) per operation, checked against Thresholds/StrataThresholds.NAME.p90.json by
//   swift package --package-path Benchmarks/Thresholds benchmark thresholds check
// which exits with 2 when a count is above its threshold by more than the tolerance below.
import Benchmark
import StrataWorkloads

/// How far a workload's allocation count may rise above its recorded threshold before the check fails.
/// The counts repeat exactly from run to run but for the reload, whose p99 is one above its median (a
/// table that grows on some runs), so 2 more allocations per operation pass and 3 fail: one more
/// allocation per parsed value, per option or per read (tens to thousands) crosses it by far. The
/// cached read has none: its threshold is 0 and any allocation fails.
func tolerance(for workload: Workload) -> BenchmarkThresholds {
  BenchmarkThresholds(absolute: [.p90: workload.name == "CachedTypedRead" ? 0 : 2])
}

let benchmarks: @Sendable () -> Void = {
  for workload in Workload.all where workload.checksAllocations {
    let configuration = Benchmark.Configuration(
      metrics: [.mallocCountTotal],
      warmupIterations: 3,
      maxDuration: .seconds(1),
      maxIterations: 200,
      thresholds: [.mallocCountTotal: tolerance(for: workload)]
    )
    Benchmark(workload.name, configuration: configuration) { benchmark, operation in
      for _ in benchmark.scaledIterations { blackHole(operation()) }
    } setup: {
      workload.prepare()
    }
  }
}
