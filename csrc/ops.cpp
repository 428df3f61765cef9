// The op schemas, and the Python module stub that loads them.
#include <Python.h>
#include <torch/library.h>

#include <string>

#include "sum_common.h"

// `import torch_reduce._C` loads this library, whose static initialisers
// register the ops; the module itself is empty (no pybind11).
extern "C" {
PyObject* PyInit__C(void) {
  static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_C", nullptr, -1, nullptr};
  return PyModule_Create(&module_def);
}
}

TORCH_LIBRARY(reduce_opt, m) {
  // v0..v6 are the classic kernels: a full sum, nothing else.
  for (int version = 0; version < torch_reduce::kNumVersions - 1; ++version) {
    const std::string schema = "sum_v" + std::to_string(version) + "(Tensor self) -> Tensor";
    m.def(schema.c_str());
  }
  // v7, the production op, takes what torch.sum takes, with ATen's schemas.
  m.def("sum_v7(Tensor self, *, ScalarType? dtype=None) -> Tensor");
  m.def(
      "sum_v7.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, "
      "ScalarType? dtype=None) -> Tensor");
}
