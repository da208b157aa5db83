// Member functions that synchronize (CUB's BlockExchange, Rodinia dwt2d's FDWT53): __syncthreads()
// in members of a class template, reached through a temporary, an object, a pointer, an implicit
// this->, a static member; member templates with deduced arguments; overloads chosen by a tag;
// the class's private types, enumerators and a reference member.
#include <cstdio>

template <int A>
struct Tag {};

namespace coll {

template <typename T, int THREADS, int ITEMS, bool SLICED = false>
class Exchange {
  typedef T Item;
  struct Storage {
    T slots[THREADS * ITEMS];
  };
  enum { TOTAL = THREADS * ITEMS };
  Storage &storage;  // a reference member: the class has no assignment
  int tid;

  template <typename U>
  __device__ void to_striped(U (&in)[ITEMS], U (&out)[ITEMS], Tag<false>) {
    for (int i = 0; i < ITEMS; i++) storage.slots[tid * ITEMS + i] = in[i];
    __syncthreads();
    for (int i = 0; i < ITEMS; i++) out[i] = storage.slots[i * THREADS + tid];
    __syncthreads();
  }

  template <typename U>
  __device__ void to_striped(U (&in)[ITEMS], U (&out)[ITEMS], Tag<true>) {
    for (int i = 0; i < ITEMS; i++) out[i] = U(-1);  // not the overload this program calls
    __syncthreads();
  }

 public:
  typedef Storage TempStorage;

  __device__ Exchange(TempStorage &s) : storage(s), tid(threadIdx.x) {}

  template <typename U>
  __device__ void BlockedToStriped(U (&in)[ITEMS], U (&out)[ITEMS]) {
    to_striped(in, out, Tag<SLICED>());
  }

  __device__ Item Total(Item v) {
    Item *slots = this->storage.slots;
    slots[tid] = v;
    __syncthreads();
    Item sum = 0;
    for (int i = 0; i < THREADS; i++) sum += slots[i];
    __syncthreads();
    if (sum < 0) return -sum;
    return sum;
  }

  static __device__ int Count() {
    __syncthreads();
    return TOTAL;
  }
};

}  // namespace coll

struct Counter {
  int *cells;
  __device__ void bump(int v) {
    cells[threadIdx.x] += v;
    __syncthreads();
  }
};

template <int N>
struct Slots {
  int *slots;
  __device__ void put(int v) {
    slots[threadIdx.x] = v;
    __syncthreads();
  }
};

__global__ void exchange_ints(const int *in, int *out, int *total) {
  __shared__ typename coll::Exchange<int, 64, 2>::TempStorage storage;
  int items[2];
  items[0] = in[threadIdx.x * 2];
  items[1] = in[threadIdx.x * 2 + 1];
  coll::Exchange<int, 64, 2>(storage).BlockedToStriped(items, items);
  out[threadIdx.x] = items[0];
  out[64 + threadIdx.x] = items[1];
  coll::Exchange<int, 64, 2> exchange(storage);
  coll::Exchange<int, 64, 2> *p = &exchange;
  int sum = p->Total(items[0]);
  int count = coll::Exchange<int, 64, 2>::Count();
  __shared__ int cells[64];
  Slots<64>{cells}.put(sum);
  if (threadIdx.x == 0) total[0] = cells[63] + count;
}

template <typename T, int THREADS>
__global__ void exchange_values(const T *in, T *out, int *neighbours) {
  typedef coll::Exchange<T, THREADS, 2> Ex;
  __shared__ typename Ex::TempStorage storage;
  __shared__ int cells[THREADS];
  T items[2];
  items[0] = in[threadIdx.x * 2];
  items[1] = in[threadIdx.x * 2 + 1];
  Ex(storage).BlockedToStriped(items, items);
  out[threadIdx.x] = items[0];
  out[THREADS + threadIdx.x] = items[1];
  cells[threadIdx.x] = 0;
  __syncthreads();
  Counter counter;
  counter.cells = cells;
  counter.bump(2);
  Slots<THREADS> slots;
  slots.slots = cells;
  slots.put(cells[threadIdx.x] + 1);
  neighbours[threadIdx.x] = cells[(threadIdx.x + 1) % THREADS];
}

int main() {
  int ok = 1;
  int in[128], out[128], total = 0;
  for (int i = 0; i < 128; i++) in[i] = i;
  int *d_in, *d_out, *d_total;
  cudaMalloc(&d_in, sizeof in);
  cudaMalloc(&d_out, sizeof out);
  cudaMalloc(&d_total, sizeof(int));
  cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice);
  exchange_ints<<<1, 64>>>(d_in, d_out, d_total);
  cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost);
  cudaMemcpy(&total, d_total, sizeof(int), cudaMemcpyDeviceToHost);
  for (int i = 0; i < 128; i++) ok &= out[i] == i;
  ok &= total == 63 * 64 / 2 + 128;
  if (!ok) printf("ints: total %d, out[1] %d\n", total, out[1]);

  float fin[64], fout[64];
  int neighbours[32];
  for (int i = 0; i < 64; i++) fin[i] = 0.5f * i;
  float *f_in, *f_out;
  int *d_neighbours;
  cudaMalloc(&f_in, sizeof fin);
  cudaMalloc(&f_out, sizeof fout);
  cudaMalloc(&d_neighbours, sizeof neighbours);
  cudaMemcpy(f_in, fin, sizeof fin, cudaMemcpyHostToDevice);
  exchange_values<float, 32><<<1, 32>>>(f_in, f_out, d_neighbours);
  cudaMemcpy(fout, f_out, sizeof fout, cudaMemcpyDeviceToHost);
  cudaMemcpy(neighbours, d_neighbours, sizeof neighbours, cudaMemcpyDeviceToHost);
  for (int i = 0; i < 64; i++) ok &= fout[i] == 0.5f * i;
  for (int i = 0; i < 32; i++) ok &= neighbours[i] == 3;  // 2 from bump, then each put 2 + 1
  if (!ok) printf("values: fout[1] %g, neighbours[0] %d\n", fout[1], neighbours[0]);
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
