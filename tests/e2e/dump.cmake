# mrr dump and mrr ls (label e2e), included from tests/e2e/CMakeLists.txt:
#   dump/golden/NAME   dump_golden.sh: `dump --stable` of tests/golden/
#                      golden_prog NAME equals tests/golden/dump_NAME.txt
#                      (MRR_UPDATE_GOLDEN=1 ctest -R dump/golden rewrites them)
#   dump/json          dump_json.sh: every --json line parses and follows
#                      trace-format/DUMP-JSON.md
#   dump/stats         dump_stats.sh: -s figures add up
#   dump/cli           dump_cli.sh: event ranges, -t, errors, incomplete and
#                      corrupt traces, -f salvage, mrr ls

set(MRR_GOLDEN ${CMAKE_SOURCE_DIR}/tests/golden)
set(MRR_PROGS ${CMAKE_BINARY_DIR}/tests/programs)

# The goldens' program has no libc and no loader, and is built with fixed
# flags whatever the build type, so that its dump is the same on every
# machine (see the comment at the top of golden_prog.c).
add_executable(mrr_golden_prog ${MRR_GOLDEN}/golden_prog.c)
set_target_properties(mrr_golden_prog PROPERTIES OUTPUT_NAME golden_prog
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/golden)
target_compile_options(mrr_golden_prog PRIVATE -O2 -ffreestanding -fno-builtin
  -fno-stack-protector -fno-pie -fno-asynchronous-unwind-tables
  -fcf-protection=none)
target_link_options(mrr_golden_prog PRIVATE -nostdlib -static -no-pie
  -Wl,--build-id=none)

foreach(mode hello madv_seed)
  set(dumps --dump "--stable")
  if(mode STREQUAL "madv_seed")
    # the mmap through the munmap of the three pages; the map at the madvise
    list(APPEND dumps --dump "--stable -m 1-9" --dump "--stable --maps-at 5")
  else()
    list(APPEND dumps --dump "--stable --json 0 end")
  endif()
  add_test(NAME dump/golden/${mode}
    COMMAND ${MRR_BASH} ${E2E}/dump_golden.sh --mrr ${MRR_BIN}
      --golden ${MRR_GOLDEN}/dump_${mode}.txt ${dumps}
      -- $<TARGET_FILE:mrr_golden_prog> ${mode})
  set_tests_properties(dump/golden/${mode} PROPERTIES LABELS e2e TIMEOUT 60)
endforeach()

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
