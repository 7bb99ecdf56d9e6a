// Scratch: where selection's host time goes on a given host (not part of the project).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>
#include <vector>
#include "core/features.hpp"
#include "core/layout.hpp"
#include "core/yardstick.hpp"
#include "selection/model.hpp"
#include "tuner/builtin_matrices.hpp"
using namespace jitsparse;
static double since(std::chrono::steady_clock::time_point t){return std::chrono::duration<double,std::milli>(std::chrono::steady_clock::now()-t).count();}
struct S { uint64_t sq=0; uint32_t mx=0, e=0; };
static S rows(const HostMatrix& a, int64_t b, int64_t en){ S s; const int32_t* rp=a.row_ptr.data(); for(int64_t r=b;r<en;++r){uint32_t l=rp[r+1]-rp[r]; s.sq+=uint64_t(l)*l; s.mx=std::max(s.mx,l); s.e+=l==0;} return s; }
static double rows_threads(const HostMatrix& a, int T){
  auto t0=std::chrono::steady_clock::now();
  std::vector<S> out(T); std::vector<std::thread> th; int64_t share=(a.rows+T-1)/T;
  for(int t=1;t<T;t++) th.emplace_back([&,t]{out[t]=rows(a,t*share,std::min<int64_t>(a.rows,(t+1)*share));});
  out[0]=rows(a,0,std::min<int64_t>(a.rows,share)); for(auto&x:th)x.join();
  return since(t0);
}
int main(int argc,char**argv){
  TuningDatabase db(argv[1]);
  SelectionModel model(db, 50<<20); model.prepare();
  for (int i=2;i<argc;i++){
    auto m = builtin_matrix(argv[i]).matrix;
    std::printf("%s: %lld rows\n", argv[i], (long long)m.rows);
    for(int rep=0;rep<3;rep++){
      auto t0=std::chrono::steady_clock::now(); MatrixFeatures f=compute_features(m); double feat=since(t0);
      double r1=rows_threads(m,1), r2=rows_threads(m,2), r4=rows_threads(m,4);
      t0=std::chrono::steady_clock::now(); bool fit=narrow_columns_fit(m); double nar=since(t0);
      t0=std::chrono::steady_clock::now(); auto h=matrix_hash(m); double hs=since(t0);
      t0=std::chrono::steady_clock::now(); model.predict({f, compulsory_bytes(m, Precision::f64), m.entry.name, Precision::f64, Op::n, false, m.entry.num_components()}); double pr=since(t0);
      std::printf("  features %.2f | row pass 1/2/4 threads %.2f %.2f %.2f | narrow check %.2f (%d) | hash %.2f | predict f64 %.2f\n", feat, r1, r2, r4, nar, fit, hs, pr);
    }
  }
}
