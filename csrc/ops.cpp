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
  for (int version = 0; version < torch_reduce::kNumVersions; ++version) {
    const std::string schema = "sum_v" + std::to_string(version) + "(Tensor self) -> Tensor";
    m.def(schema.c_str());
  }
}
