# The syscall buffer record walker's fuzzer (ctest fuzz/sbuf_records),
# included from tests/fuzz/CMakeLists.txt once it found a clang that builds
# libFuzzer targets (MRR_CLANG). Like the trace reader's, it is compiled by
# its own command; its seed corpus is written at build time by the same
# source built as a plain program (-DSBUF_SEEDS).
set(MRR_SBUF_FUZZ_SRCS ${CMAKE_SOURCE_DIR}/src/core/sbuf_records.c)
set(MRR_SBUF_FUZZ_DEPS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_sbuf_records.c
  ${MRR_SBUF_FUZZ_SRCS} ${CMAKE_SOURCE_DIR}/src/core/sbuf_records.h
  ${CMAKE_SOURCE_DIR}/src/syscallbuf/abi.h
  ${CMAKE_SOURCE_DIR}/src/syscallbuf/calls.h)
set(MRR_SBUF_FUZZER ${CMAKE_CURRENT_BINARY_DIR}/fuzz_sbuf_records)
set(MRR_SBUF_SEEDGEN ${CMAKE_CURRENT_BINARY_DIR}/fuzz_sbuf_seeds)
set(MRR_SBUF_CORPUS ${CMAKE_CURRENT_BINARY_DIR}/sbuf_corpus)

add_custom_command(OUTPUT ${MRR_SBUF_FUZZER}
  COMMAND ${MRR_CLANG} -std=gnu11 -g -O1 -fno-omit-frame-pointer
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
    -I${CMAKE_SOURCE_DIR}/src
    ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_sbuf_records.c ${MRR_SBUF_FUZZ_SRCS}
    -o ${MRR_SBUF_FUZZER}
  DEPENDS ${MRR_SBUF_FUZZ_DEPS}
  COMMENT "Building the syscall buffer record fuzzer with clang"
  VERBATIM)
add_custom_command(OUTPUT ${MRR_SBUF_CORPUS}/reads
  COMMAND ${MRR_CLANG} -std=gnu11 -DSBUF_SEEDS -I${CMAKE_SOURCE_DIR}/src
    ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_sbuf_records.c -o ${MRR_SBUF_SEEDGEN}
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${MRR_SBUF_CORPUS}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${MRR_SBUF_CORPUS}
  COMMAND ${MRR_SBUF_SEEDGEN} ${MRR_SBUF_CORPUS}
  DEPENDS ${MRR_SBUF_FUZZ_DEPS}
  COMMENT "Writing the syscall buffer record fuzzer's seeds"
  VERBATIM)
add_custom_target(fuzz_sbuf_records ALL
  DEPENDS ${MRR_SBUF_FUZZER} ${MRR_SBUF_CORPUS}/reads)

add_test(NAME fuzz/sbuf_records
  COMMAND ${CMAKE_COMMAND} -DFUZZER=${MRR_SBUF_FUZZER}
    -DCORPUS=${MRR_SBUF_CORPUS}
    -DWORK=${CMAKE_CURRENT_BINARY_DIR}/sbuf_records_work
    -DSECONDS=30 -P ${CMAKE_CURRENT_SOURCE_DIR}/run_fuzzer.cmake)
set_tests_properties(fuzz/sbuf_records PROPERTIES TIMEOUT 200)
