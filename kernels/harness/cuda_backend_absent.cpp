// Built when CUDA is not: asking for the cuda backend is a user error with a clear remedy.
#include "kernels/harness/backend.hpp"
#include "core/error.hpp"

namespace k3::kernels {

bool cuda_backend_compiled() { return false; }

std::unique_ptr<Backend> make_cuda_backend() {
  throw core::InputError({"--backend", "", 0}, "this k3sim was built without CUDA",
                         "cpu (or rebuild with `cmake --preset cuda`)");
}

}  // namespace k3::kernels
