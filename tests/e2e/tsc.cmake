# rdtsc modes (label e2e), included from tests/e2e/CMakeLists.txt:
#   tsc/modes   tsc_modes.sh: rdtsc programs and code_checksum recorded and
#               replayed in mode trap (where this machine traps rdtsc) and
#               mode rewrite (forced with MRR_TSC_MODE), the automatic
#               choice, the refusals, and a program's own PR_TSC_SIGSEGV

set(tsc_args)
foreach(p rdtsc static_rdtsc)
  if(TARGET mrrprog_${p})
    list(APPEND tsc_args --rdtsc $<TARGET_FILE:mrrprog_${p}>)
  endif()
endforeach()
if(TARGET mrrprog_tsc_sigsegv)
  list(APPEND tsc_args --sigsegv $<TARGET_FILE:mrrprog_tsc_sigsegv>)
endif()
if(TARGET mrrprog_code_checksum)
  add_test(NAME tsc/modes
    COMMAND ${MRR_BASH} ${E2E}/tsc_modes.sh --mrr ${MRR_BIN}
      --checksum $<TARGET_FILE:mrrprog_code_checksum> ${tsc_args})
  set_tests_properties(tsc/modes PROPERTIES LABELS e2e TIMEOUT 300)
endif()
