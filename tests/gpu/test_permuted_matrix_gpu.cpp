// runtime/permuted_matrix.hpp on the GPU: upload P x, multiply by P A P^T, download through P^T: A x.
#include <doctest/doctest.h>

#include "core/permutation.hpp"
#include "core/random_matrix.hpp"
#include "core/reference.hpp"
#include "gpu_test_util.hpp"
#include "runtime/permuted_matrix.hpp"
#include "runtime/spmv.hpp"

using namespace jitsparse;
using jitsparse::test::gpu_context;

TEST_CASE("gpu permuted matrix: a product in the rcm numbering comes back as A x") {
  Context& ctx = gpu_context();
  RandomMatrixOptions o;
  o.rows = o.cols = 3000;
  o.band = 40;
  o.empty_fraction = 0.05;
  const EntryType& q = EntryRegistry::instance().get("quaternion");
  const HostMatrix banded = random_matrix(q, o);
  const HostMatrix a = permute_symmetric(banded, random_permutation(banded.rows, 6));
  const PermutedMatrix p = reorder(a, Ordering::rcm);
  for (const char* name : {"quaternion.f64/csr-aos-aos/static-256x8", "quaternion.f32/sell32-soa-soa/static-256x4"}) {
    const Variant v = Variant::parse(name);
    DeviceMatrix da(ctx, p.matrix, v.layout, v.precision);
    DeviceVector dx(ctx, a.cols, 4, v.layout.vector, v.precision), dy(ctx, a.rows, 4, v.layout.vector, v.precision);
    const auto x = random_vector(a.cols, 4, 3);
    p.upload_permuted(dx, x);
    dy.poison();
    spmv(ctx, v, da, dx, dy);
    ctx.synchronize();
    const auto r = verify_result(p.download_unpermuted(dy), reference_spmv(a, x), reference_abs_scale(a, x),
                                 default_tolerance(v.precision), 4);
    CHECK_MESSAGE(r.ok, name, ": ", r.message);
  }
}
