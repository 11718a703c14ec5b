#pragma once
// One GPU's part of a PassProgram as an execution graph in the step graph's node kinds (step_graph.hpp): each
// compute step a COMP_NODE on the GPU's compute stream with its duration and the host time to issue it, each
// collective the thread takes part in a COMM_COLL_NODE, and the dependencies the replay honours (a thread's steps
// in order; a step after a wait on the collective's completion, marked where the host waits too). What
// `k3sim run --export-graph` writes beside the step graph for each distinct pass, so a reader sees the kernels
// behind each pass node; the pass's own engine run (execute_pass) is what times it.
#include <nlohmann/json_fwd.hpp>

#include "sim/workload/pass_program.hpp"

namespace k3::exec {

// The threads of `program` on GPU `gpu_slot` (an index into PassProgram::gpus), as {"gpu", "nodes"}.
nlohmann::json program_to_json(const workload::PassProgram& program, int gpu_slot);

}  // namespace k3::exec
