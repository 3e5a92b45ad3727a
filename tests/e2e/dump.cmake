# mrr dump and mrr ls (label e2e), included from tests/e2e/CMakeLists.txt:
#   dump/golden/NAME   dump_golden.sh: `dump --stable` of a fixed program
#                      equals tests/golden/dump_NAME.txt
#                      (MRR_UPDATE_GOLDEN=1 ctest -R dump/golden rewrites them)
#   dump/json          dump_json.sh: every --json line parses and follows
#                      trace-format/DUMP-JSON.md
#   dump/stats         dump_stats.sh: -s figures add up
#   dump/cli           dump_cli.sh: event ranges, -t, errors, incomplete and
#                      corrupt traces, -f salvage, mrr ls

set(MRR_GOLDEN ${CMAKE_SOURCE_DIR}/tests/golden)
set(MRR_PROGS ${CMAKE_BINARY_DIR}/tests/programs)

if(TARGET mrrprog_madv_seed AND TARGET mrrprog_hello)
  add_test(NAME dump/golden/madv_seed
    COMMAND ${MRR_BASH} ${E2E}/dump_golden.sh --mrr ${MRR_BIN}
      --golden ${MRR_GOLDEN}/dump_madv_seed.txt
      --dump "--stable" --dump "--stable -m 29-41"
      --dump "--stable --maps-at 37"
      -- $<TARGET_FILE:mrrprog_madv_seed>)
  add_test(NAME dump/golden/hello
    COMMAND ${MRR_BASH} ${E2E}/dump_golden.sh --mrr ${MRR_BIN}
      --golden ${MRR_GOLDEN}/dump_hello.txt
      --dump "--stable" --dump "--stable --json 0 end"
      -- $<TARGET_FILE:mrrprog_hello>)
  set_tests_properties(dump/golden/madv_seed dump/golden/hello PROPERTIES
    LABELS e2e TIMEOUT 60)
endif()

set(MRR_JSON_PROGS madv_seed hello segv_handler kill_self rdtsc exec fork_wait
  sbuf_mix)
set(json_args)
foreach(p ${MRR_JSON_PROGS})
  if(TARGET mrrprog_${p})
    list(APPEND json_args $<TARGET_FILE:mrrprog_${p}>)
  endif()
endforeach()
add_test(NAME dump/json
  COMMAND ${MRR_BASH} ${E2E}/dump_json.sh --mrr ${MRR_BIN} -- ${json_args})
set_tests_properties(dump/json PROPERTIES LABELS e2e TIMEOUT 120)

if(TARGET trace_edit AND TARGET mrrprog_madv_seed AND TARGET mrrprog_hello
    AND TARGET mrrprog_fork_wait)
  add_test(NAME dump/cli
    COMMAND ${MRR_BASH} ${E2E}/dump_cli.sh --mrr ${MRR_BIN}
      --trace-edit $<TARGET_FILE:trace_edit>
      --seed $<TARGET_FILE:mrrprog_madv_seed>
      --hello $<TARGET_FILE:mrrprog_hello>
      --fork $<TARGET_FILE:mrrprog_fork_wait>)
  set_tests_properties(dump/cli PROPERTIES LABELS e2e TIMEOUT 120)
endif()
