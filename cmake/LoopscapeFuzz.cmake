# LOOPSCAPE_FUZZ: the whole project is compiled with libFuzzer's coverage instrumentation
# plus sanitizers (below), and fuzz/ links one libFuzzer executable per input format
# (fuzz/CMakeLists.txt). libFuzzer ships with Clang's compiler-rt (Debian: clang-16 and
# libfuzzer-16-dev, see scripts/install-deps.sh); configure with the `fuzz` preset.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR
    "LOOPSCAPE_FUZZ needs Clang (libFuzzer is part of Clang's compiler-rt), but the C++ compiler is "
    "${CMAKE_CXX_COMPILER_ID} (${CMAKE_CXX_COMPILER}); configure a fresh build directory with "
    "`cmake --preset fuzz` (clang++-16; scripts/install-deps.sh installs clang-16 and libfuzzer-16-dev)")
endif()
# The sanitizers: ASan and UBSan by default (the `fuzz` preset); UBSan alone for the `fuzz-ub`
# preset, whose harnesses run the isl-heavy trace formats several times faster (ASan's
# allocator dominates them: isl and GMP allocate for every integer), with the corpus they
# grow replayed under ASan afterwards (bench/fuzz.sh --ub). Undefined behaviour stops the
# fuzzer like an ASan finding.
set(LOOPSCAPE_FUZZ_SANITIZERS "address,undefined" CACHE STRING
    "Sanitizers of the fuzz build: address,undefined or undefined")
set_property(CACHE LOOPSCAPE_FUZZ_SANITIZERS PROPERTY STRINGS "address,undefined" "undefined")
if(NOT LOOPSCAPE_FUZZ_SANITIZERS MATCHES "^(address,undefined|undefined)$")
  message(FATAL_ERROR "LOOPSCAPE_FUZZ_SANITIZERS is '${LOOPSCAPE_FUZZ_SANITIZERS}'; use address,undefined or undefined")
endif()
add_compile_options(-fsanitize=fuzzer-no-link,${LOOPSCAPE_FUZZ_SANITIZERS} -fno-sanitize-recover=undefined
                    -fno-omit-frame-pointer)
add_link_options(-fsanitize=${LOOPSCAPE_FUZZ_SANITIZERS})
# Clang before 19 reports __cpp_concepts as 201907, and libstdc++ 12's <expected> hides
# std::expected below 202002; Clang 16 implements what <expected> needs (P0848).
if(CMAKE_CXX_COMPILER_VERSION VERSION_LESS 19)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-U__cpp_concepts;-D__cpp_concepts=202002L>")
endif()
