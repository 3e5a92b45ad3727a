# Runs one libFuzzer binary for SECONDS over a fresh copy of CORPUS in WORK.
# Crash inputs land in WORK/artifacts; the test fails on any of them.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus ${WORK}/artifacts)
file(GLOB seeds ${CORPUS}/*)
if(NOT seeds)
  message(FATAL_ERROR "the seed corpus ${CORPUS} is empty")
endif()
file(COPY ${seeds} DESTINATION ${WORK}/corpus)
execute_process(
  COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=20 -rss_limit_mb=2048
    -print_final_stats=1 -artifact_prefix=${WORK}/artifacts/ ${WORK}/corpus
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the fuzzer ${FUZZER} failed (exit ${rc}); the input that crashed it is in ${WORK}/artifacts")
endif()
