// los-sim generate: writes a synthetic workload from a model as SWF.
#pragma once

// argv[0] is the program, argv[1] "generate". Returns the exit status.
int run_generate(int argc, char** argv);
