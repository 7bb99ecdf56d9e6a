#pragma once
#include <cstdint>
#include <vector>

#include "core/entry_type.hpp"
#include "core/hisparse.hpp"
#include "core/layout.hpp"
#include "core/op.hpp"

namespace jitsparse {

// HiSparse as a device layout (outer hisparse in core/layout.hpp): the tree's pool plus the static work
// lists the kernels walk (templates/jitsparse/hisparse.cuh). The lists are built for both operations,
// so one packed matrix serves A x, A^T x and A^H x: transposing reads the same pool the other way.

HiSparseOptions hisparse_options(const Layout& l);  // d, X; dense leaves where they are smaller
// Throws InvalidArgument for a layout that is not hisparse or has soa entries.
PackedMatrix pack_hisparse(const HostMatrix& a, const Layout& l, Precision p);
// An estimate of the bytes without building the tree (for a memory cap): entries with their 8-bit
// coordinates, plus a quarter for padding and nodes.
int64_t hisparse_bytes_estimate(const HostMatrix& a, const Layout& l, Precision p);
// Rebuilds the pool from a; throws InvalidArgument (leaving m untouched) if the tree's shape changes.
void repack_hisparse_values(PackedMatrix& m, const HostMatrix& a);

// The strips with at least `big_entries` slots (a power of two, 0 = none): the first ones of strip_order.
int32_t hisparse_big_strips(const PackedMatrix::HiStrips& s, int64_t big_entries);
// The lists of an operation: hi[0] for A x, hi[1] for A^T x and A^H x.
inline const PackedMatrix::HiStrips& hisparse_strips(const PackedMatrix& m, Op op) { return m.hi[op == Op::n ? 0 : 1]; }

// y = alpha op(A) x + beta y, reading the pool through the strips of op exactly as the kernel does, in
// double arithmetic; x and y are packed vectors (x: op(A)'s columns). Proves the packing and the lists.
void spmv_hisparse_packed_cpu(const PackedMatrix& m, const EntryType& entry, Op op,
                              const std::vector<unsigned char>& x, std::vector<unsigned char>& y, double alpha,
                              double beta);

}  // namespace jitsparse
