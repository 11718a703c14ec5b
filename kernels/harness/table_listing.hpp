#pragma once
// Kernel tables in words: per op class, how many tables and measured cells, and (detailed) each table with its
// source file, framework, selection and the measured range of every shape axis (`k3sim profile show`).
#include <string>

#include "sim/cost/kernel_tables.hpp"

namespace k3::kernels {

// `path`: the file the tables were read from or written to, named in the heading.
std::string format_kernel_tables(const cost::KernelTables& tables, const std::string& path, bool detailed);

}  // namespace k3::kernels
