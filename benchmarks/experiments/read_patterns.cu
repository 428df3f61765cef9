// Probe, not part of the build: how fast the read patterns of the dense-row
// and column kernels stream on this GPU, with nothing else of sum_v7 around
// them (benchmarks/NOTES.md, session 19, Next 3).
//
//   nvcc -O3 -std=c++17 -arch=native -o /tmp/read_patterns benchmarks/experiments/read_patterns.cu
//   /tmp/read_patterns
//
// Questions:
//  - Rows (8192x4096 and 4096x32000 fp32, a block a row): does the number of
//    rows read at once (resident blocks, capped here with padding shared
//    memory so that the block's code and registers stay the same) set the
//    bandwidth? v7 keeps 1,056 rows in flight on an H100, Inductor fewer.
//  - Columns (8192x4096 fp32, dim=0): does a band wider than one warp's
//    512 bytes of a row read faster? (Session 20: no, 512 B is fastest.)
//    Does the resident block count set the bandwidth? v7's column kernel
//    runs at 64 registers, 4 blocks of 256 an H100 multiprocessor and 16
//    splits, and reads dim=0 in 49.1-49.6 us; this main pass, uncapped (8
//    blocks, 33 splits), read it in 45.2. Session 42: how much the split
//    count of the cluster shapes costs (7 splits of 256-byte bands).
//
// Every kernel's result is checked against a float64 sum on the host before
// it is timed. Times are CUDA-graph replays of launches over copies of the
// input that together exceed 4x L2, median of 7.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "probe.cuh"

namespace {

template <int kThreads>
__device__ __forceinline__ float block_total(float value) {
  __shared__ float warp_sums[32];
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(~0u, value, offset);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = value;
  __syncthreads();
  value = threadIdx.x < kThreads / 32 ? warp_sums[threadIdx.x] : 0.0f;
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(~0u, value, offset);
  return value;
}

// A block a row, kLoads 16-byte loads in flight a thread, as dense_row_kernel.
// kMinBlocks sets the register cap: 8 blocks of 128 is v7's 64 registers.
template <int kThreads, int kLoads, int kMinBlocks>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    rows_kernel(const float4* matrix, int row_vectors, float* result) {
  extern __shared__ char occupancy_cap[];  // never touched
  const float4* row = matrix + size_t(blockIdx.x) * row_vectors;
  float sum = 0.0f;
  for (int first = 0; first < row_vectors; first += kThreads * kLoads) {
    float4 batch[kLoads];
#pragma unroll
    for (int l = 0; l < kLoads; ++l) {
      const int v = first + l * kThreads + int(threadIdx.x);
      batch[l] = v < row_vectors ? load_streaming(row + v) : make_float4(0, 0, 0, 0);
    }
#pragma unroll
    for (int l = 0; l < kLoads; ++l) sum += (batch[l].x + batch[l].y) + (batch[l].z + batch[l].w);
  }
  sum = block_total<kThreads>(sum);
  if (threadIdx.x == 0) result[blockIdx.x] = sum;
}

// Column sums of a rows x (row_vectors * 4) matrix: a band of kLanes column
// vectors (kLanes * 16 bytes of each row), 256 / kLanes row lanes, split
// `gridDim.y` ways over the rows; partials[split][column].
template <int kLanes>
__global__ void __launch_bounds__(256)
    columns_kernel(const float4* matrix, int rows, int row_vectors, int rows_per_split,
                   float4* partials) {
  constexpr int kRowLanes = 256 / kLanes;
  constexpr int kUnroll = 4;
  __shared__ float4 lane_sums[kRowLanes][kLanes];
  const int lane = threadIdx.x % kLanes;
  const int row_lane = threadIdx.x / kLanes;
  const int column = blockIdx.x * kLanes + lane;
  const int begin = blockIdx.y * rows_per_split;
  const int end = min(rows, begin + rows_per_split);
  float4 sum = make_float4(0, 0, 0, 0);
  for (int r = begin + row_lane; r < end; r += kRowLanes * kUnroll) {
    float4 batch[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int row = r + u * kRowLanes;
      batch[u] = row < end ? load_streaming(matrix + size_t(row) * row_vectors + column)
                           : make_float4(0, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      sum.x += batch[u].x, sum.y += batch[u].y, sum.z += batch[u].z, sum.w += batch[u].w;
    }
  }
  lane_sums[row_lane][lane] = sum;
  __syncthreads();
  if (row_lane != 0) return;
  for (int l = 1; l < kRowLanes; ++l) {
    const float4 other = lane_sums[l][lane];
    sum.x += other.x, sum.y += other.y, sum.z += other.z, sum.w += other.w;
  }
  partials[size_t(blockIdx.y) * row_vectors + column] = sum;
}

// The read roofline's pattern: one wave of 1024-thread blocks striding over
// the whole input, 4 loads in flight a thread; a total a block.
__global__ void __launch_bounds__(1024, 2)
    grid_stride_kernel(const float4* input, size_t vectors, float* result) {
  float sum = 0.0f;
  const size_t stride = size_t(gridDim.x) * 1024;
  for (size_t first = size_t(blockIdx.x) * 1024 + threadIdx.x; first < vectors;
       first += 4 * stride) {
    float4 batch[4];
#pragma unroll
    for (int l = 0; l < 4; ++l) {
      const size_t v = first + l * stride;
      batch[l] = v < vectors ? load_streaming(input + v) : make_float4(0, 0, 0, 0);
    }
#pragma unroll
    for (int l = 0; l < 4; ++l) sum += (batch[l].x + batch[l].y) + (batch[l].z + batch[l].w);
  }
  sum = block_total<1024>(sum);
  if (threadIdx.x == 0) result[blockIdx.x] = sum;
}

struct Device {
  int sms = 0;
  size_t l2_bytes = 0;
  size_t smem_per_sm = 0;
  std::string name;
};

Device query_device() {
  cudaDeviceProp props{};
  CHECK(cudaGetDeviceProperties(&props, 0));
  return {props.multiProcessorCount, size_t(props.l2CacheSize), props.sharedMemPerMultiprocessor,
          props.name};
}

// Microseconds per launch of `launch(copy)`, copies rotating, in a graph.
double time_us(cudaStream_t stream, int copies, const std::function<void(int)>& launch) {
  constexpr int kLaunches = 40;
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < kLaunches; ++i) launch(i % copies);
  CHECK(cudaStreamEndCapture(stream, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<double> times;
  CHECK(cudaGraphLaunch(exec, stream));  // warm-up
  for (int r = 0; r < 7; ++r) {
    CHECK(cudaEventRecord(start, stream));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaEventRecord(stop, stream));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(1000.0 * ms / kLaunches);
  }
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// A float64 sum and the sum of magnitudes (the scale of its rounding error).
struct Reference {
  double sum = 0, scale = 0;
  void add(float value) { sum += value, scale += std::fabs(value); }
};

// The rows x columns matrix, `copies` of it back to back, filled on the GPU;
// copy 0's row, column and total references, computed once on the host.
struct Input {
  int rows, columns, copies;
  float* device = nullptr;
  std::vector<Reference> row_sums, column_sums;
  Reference total;
  size_t elements() const { return size_t(rows) * columns; }
  const float4* copy(int c) const {
    return reinterpret_cast<const float4*>(device + size_t(c) * elements());
  }
};

Input make_input(int rows, int columns, const Device& device) {
  Input input{rows, columns, 0};
  const size_t bytes = input.elements() * sizeof(float);
  input.copies = int(std::max<size_t>(2, (4 * device.l2_bytes + bytes - 1) / bytes));
  CHECK(cudaMalloc(&input.device, bytes * input.copies));
  fill_kernel<<<4 * device.sms, 1024>>>(input.device, input.elements() * input.copies, 12345u);
  CHECK(cudaGetLastError());
  std::vector<float> host(input.elements());
  CHECK(cudaMemcpy(host.data(), input.device, bytes, cudaMemcpyDeviceToHost));
  input.row_sums.resize(rows);
  input.column_sums.resize(columns);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < columns; ++c) {
      const float value = host[size_t(r) * columns + c];
      input.row_sums[r].add(value);
      input.column_sums[c].add(value);
      input.total.add(value);
    }
  }
  return input;
}

void check_close(double got, const Reference& want, const char* what) {
  if (std::fabs(got - want.sum) > 1e-5 * want.scale) {  // float32 rounding, not a lost load
    std::fprintf(stderr, "%s: %.6f != %.6f\n", what, got, want.sum);
    std::exit(1);
  }
}

void report(const Input& input, const std::string& what, double us) {
  const double gbs = double(input.elements()) * sizeof(float) / (us * 1e3);
  std::printf("| %dx%d | %s | %.2f | %.0f |\n", input.rows, input.columns, what.c_str(), us, gbs);
}

// Dynamic shared memory that leaves room for `blocks_per_sm` blocks of
// `kernel` (none for 0): a multiprocessor's share, less the kernel's static
// shared memory, the 1 KB the GPU reserves a block and a margin for the
// allocation granularity. The occupancy API says what it gives, and the
// table shows that.
template <typename Kernel>
size_t occupancy_cap(Kernel kernel, const Device& device, int blocks_per_sm) {
  if (blocks_per_sm == 0) return 0;
  cudaFuncAttributes attributes{};
  CHECK(cudaFuncGetAttributes(&attributes, kernel));
  const size_t pad = device.smem_per_sm / blocks_per_sm - attributes.sharedSizeBytes - 1024 - 256;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(pad)));
  return pad;
}

// Rows: a block a row at `blocks_per_sm` resident blocks (or the most that
// fit when 0), checked row by row against the host, then timed.
template <int kThreads, int kLoads, int kMinBlocks>
void run_rows(const Input& input, const Device& device, int blocks_per_sm, cudaStream_t stream) {
  const auto kernel = rows_kernel<kThreads, kLoads, kMinBlocks>;
  const size_t pad = occupancy_cap(kernel, device, blocks_per_sm);
  int resident = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, kThreads, pad));
  float* result;
  CHECK(cudaMalloc(&result, input.rows * sizeof(float)));
  const int row_vectors = input.columns / 4;
  kernel<<<input.rows, kThreads, pad, stream>>>(input.copy(0), row_vectors, result);
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(stream));  // non-blocking: cudaMemcpy would not wait
  std::vector<float> got(input.rows);
  CHECK(cudaMemcpy(got.data(), result, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (int r = 0; r < input.rows; ++r) check_close(got[r], input.row_sums[r], "rows");
  const double us = time_us(stream, input.copies, [&](int copy) {
    kernel<<<input.rows, kThreads, pad, stream>>>(input.copy(copy), row_vectors, result);
  });
  CHECK(cudaFree(result));
  report(input,
         "rows " + std::to_string(kThreads) + "x" + std::to_string(kLoads) + ", " +
             std::to_string(resident) + " blocks/SM (" + std::to_string(resident * device.sms) +
             " rows in flight)",
         us);
}

// Columns (dim=0): bands of kLanes vectors at `blocks_per_sm` resident
// blocks (the most that fit when 0), splits filling one wave unless
// `forced_splits` says how many; the partials' second pass is left out (the
// same for every band width).
template <int kLanes>
void run_columns(const Input& input, const Device& device, int blocks_per_sm, cudaStream_t stream,
                 int forced_splits = 0) {
  const auto kernel = columns_kernel<kLanes>;
  const size_t pad = occupancy_cap(kernel, device, blocks_per_sm);
  int resident = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, 256, pad));
  const int row_vectors = input.columns / 4;
  const int bands = row_vectors / kLanes;
  const int splits = forced_splits > 0 ? forced_splits : std::max(1, resident * device.sms / bands);
  const int rows_per_split = (input.rows + splits - 1) / splits;
  float4* partials;
  CHECK(cudaMalloc(&partials, size_t(splits) * row_vectors * sizeof(float4)));
  const dim3 grid(bands, splits);
  kernel<<<grid, 256, pad, stream>>>(input.copy(0), input.rows, row_vectors, rows_per_split,
                                     partials);
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(stream));  // non-blocking: cudaMemcpy would not wait
  std::vector<float> got(size_t(splits) * input.columns);
  CHECK(cudaMemcpy(got.data(), partials, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (int c = 0; c < input.columns; ++c) {
    double total = 0;
    for (int s = 0; s < splits; ++s) total += got[size_t(s) * input.columns + c];
    check_close(total, input.column_sums[c], "columns");
  }
  const double us = time_us(stream, input.copies, [&](int copy) {
    kernel<<<grid, 256, pad, stream>>>(input.copy(copy), input.rows, row_vectors, rows_per_split,
                                       partials);
  });
  CHECK(cudaFree(partials));
  report(input,
         "columns, bands of " + std::to_string(kLanes * 16) + " B, " + std::to_string(resident) +
             " blocks/SM, " + std::to_string(splits) + " splits, main pass only",
         us);
}

void run_grid_stride(const Input& input, const Device& device, cudaStream_t stream) {
  int resident = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, grid_stride_kernel, 1024, 0));
  const int blocks = resident * device.sms;  // one wave
  float* result;
  CHECK(cudaMalloc(&result, blocks * sizeof(float)));
  const size_t vectors = input.elements() / 4;
  grid_stride_kernel<<<blocks, 1024, 0, stream>>>(input.copy(0), vectors, result);
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(stream));  // non-blocking: cudaMemcpy would not wait
  std::vector<float> got(blocks);
  CHECK(cudaMemcpy(got.data(), result, blocks * sizeof(float), cudaMemcpyDeviceToHost));
  double total = 0;
  for (float g : got) total += g;
  check_close(total, input.total, "grid stride");
  const double us = time_us(stream, input.copies, [&](int copy) {
    grid_stride_kernel<<<blocks, 1024, 0, stream>>>(input.copy(copy), vectors, result);
  });
  CHECK(cudaFree(result));
  report(input, "grid-stride read (roofline pattern)", us);
}

}  // namespace

int main() {
  const Device device = query_device();
  std::printf("%s, %d SMs, %zu MB L2\n\n| shape | pattern | us | GB/s |\n|---|---|---|---|\n",
              device.name.c_str(), device.sms, device.l2_bytes >> 20);
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (const auto [rows, columns] : {std::pair{8192, 4096}, std::pair{4096, 32000}}) {
    Input input = make_input(rows, columns, device);
    run_grid_stride(input, device, stream);
    for (int blocks_per_sm : {0, 8, 6, 4, 2}) {
      run_rows<128, 8, 8>(input, device, blocks_per_sm, stream);  // v7's dense_row_kernel
    }
    for (int blocks_per_sm : {0, 2}) run_rows<512, 2, 4>(input, device, blocks_per_sm, stream);
    for (int blocks_per_sm : {0, 4, 2}) run_rows<256, 4, 4>(input, device, blocks_per_sm, stream);
    if (rows == 8192) {
      // v7's band; 4 blocks of 256 a multiprocessor is v7's residency.
      for (int blocks_per_sm : {0, 6, 4}) run_columns<32>(input, device, blocks_per_sm, stream);
      run_columns<64>(input, device, 0, stream);
      // sum_v7's cluster shapes on an H100 (session 42): 256-byte bands in 7
      // splits (clusters of 8 hold fewer than 64 bands of 8), against 8; and
      // 512-byte bands in 14 splits (28 clusters of 16).
      for (int splits : {8, 7}) run_columns<16>(input, device, 4, stream, splits);
      run_columns<32>(input, device, 4, stream, 14);
      run_columns<16>(input, device, 8, stream);
    }
    CHECK(cudaFree(input.device));
  }
  CHECK(cudaStreamDestroy(stream));
  return 0;
}
