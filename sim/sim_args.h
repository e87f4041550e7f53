// SPDX-License-Identifier: Apache-2.0
//
// The command line of the RTL simulators (wsemu-sim, wsemu-board-sim):
// the words of $WSEMU_SIM_OPTS (split at white space) first, then argv, so
// that a host program that starts the simulator for a sim: URI can pass it
// options through the environment (docs/wsemu-sim.md).
#pragma once

#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

inline std::vector<std::string> sim_args(int argc, char **argv)
{
	std::vector<std::string> args;
	if (const char *env = getenv("WSEMU_SIM_OPTS")) {
		std::string e = env, w;
		for (size_t k = 0; k <= e.size(); k++) {
			if (k == e.size() || isspace((unsigned char)e[k])) {
				if (!w.empty()) args.push_back(w);
				w.clear();
			} else {
				w += e[k];
			}
		}
	}
	for (int i = 1; i < argc; i++) args.push_back(argv[i]);
	return args;
}
