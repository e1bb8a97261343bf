// gpuplan command-line entry point; everything happens in run_cli (cli/run.cpp).
#include <iostream>

#include "cli/commands.h"

int main(int argc, char** argv) { return gpuplan::run_cli(argc, argv, std::cout, std::cerr); }
