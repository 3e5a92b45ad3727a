# divergence/report: what the divergence report shows (issue 6).
if(TARGET mrrprog_hello AND TARGET trace_edit)
  add_test(NAME divergence/report COMMAND ${MRR_BASH} ${E2E}/divergence_report.sh
    ${MRR_BIN} $<TARGET_FILE:trace_edit> $<TARGET_FILE:mrrprog_hello>)
  set_tests_properties(divergence/report PROPERTIES LABELS e2e TIMEOUT 60)
endif()
