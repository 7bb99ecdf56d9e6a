// Kernel arguments of HiSparse A + B (templates/jitsparse/hisparse_add.cuh). Plain C++ with no CUDA
// dependency: runtime/hisparse_add.cpp fills the same struct, so its layout must stay identical.
#pragma once

namespace jitsparse {

constexpr unsigned kHiAddDenseLeaf = 1, kHiAddCoo1 = 2, kHiAddCoo2 = 3, kHiAddCoo4 = 4, kHiAddDenseInner = 5,
                   kHiAddSparseInner = 6, kHiAddCsrLeaf = 7;
constexpr unsigned long long kHiAddRootSlot = ~0ull;  // the item's output is C's root

// state[] words of the output: the pool's used span (chunks included), overflow flag, root pointer, the
// bytes of nodes (the span less the unused tails of chunks), and the leaf level's big items
// (templates/jitsparse/hisparse_add_leaf.cuh).
constexpr int kHiAddUsed = 0, kHiAddOverflow = 1, kHiAddRoot = 2, kHiAddNodeBytes = 3, kHiAddBig = 4,
              kHiAddStateWords = 5;

template <class T>
struct HiAddParams {
  const unsigned char* pool_a;
  const unsigned char* pool_b;
  unsigned char* out;                 // C's pool
  unsigned long long capacity;        // its bytes
  unsigned long long chunk;           // bytes a block takes from the pool at once (a multiple of 16)
  unsigned long long* state;          // used bytes, overflow flag, root pointer
  const unsigned long long* in_a;     // this level's items: node of op(A) (0: none)
  const unsigned long long* in_b;     // node of op(B) (0: none)
  const unsigned long long* in_slot;  // byte offset of the pointer slot in C's pool, or kHiAddRootSlot
  const unsigned* in_count;
  unsigned in_capacity;               // items the level's arrays hold
  unsigned long long* next_a;         // the next level's items (inner levels only)
  unsigned long long* next_b;
  unsigned long long* next_slot;
  unsigned* next_count;
  unsigned next_capacity;
  unsigned* big_items;                // leaf level: the items left to hisparse_add_leaf_big (in_capacity of them)
  const T* map_a;  // C x C entry map (the adjoint for op h), row-major; nullptr: the entry itself
  const T* map_b;
  T coef_a, coef_b;
  int trans_a, trans_b;  // read the stored tree transposed
  int dense_leaves;      // dense output leaves allowed
  int csr_leaves;        // CSR output leaves allowed
  int coo_width;         // X of output COO leaves
};

}  // namespace jitsparse
