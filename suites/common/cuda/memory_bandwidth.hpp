// Theoretical DRAM bandwidth of a GPU, the figure "% of peak" is taken against by the memory and
// fusion suites.
#pragma once

namespace gpubench::suite::cuda {

// Decimal GB/s: 2 transfers per memory clock (DDR/HBM) x bus width, the formula of NVIDIA's
// bandwidthTest sample (A100 40GB: 1215 MHz x 5120 bit -> 1555 GB/s; H100 SXM: 2619 MHz x 5120 bit
// -> 3352 GB/s, matching the data sheets). 0 when the driver does not report the attributes.
// Never throws.
double peak_dram_gb_per_s(int device);

}  // namespace gpubench::suite::cuda
