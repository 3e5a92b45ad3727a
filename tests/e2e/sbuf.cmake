# Syscall buffer cases the generic program harness cannot express.
add_executable(mrrhostile_sbuf_corrupt ${CMAKE_SOURCE_DIR}/tests/hostile/sbuf_corrupt.c)
set_target_properties(mrrhostile_sbuf_corrupt PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/hostile OUTPUT_NAME sbuf_corrupt)
add_test(NAME sbuf/corrupt COMMAND ${MRR_BASH} ${E2E}/sbuf_corrupt.sh ${MRR_BIN}
  $<TARGET_FILE:mrrhostile_sbuf_corrupt>)
set_tests_properties(sbuf/corrupt PROPERTIES LABELS e2e TIMEOUT 60)
# The calls buffered since issue 14 show as buffered in dump -s.
add_test(NAME sbuf/buffered COMMAND ${MRR_BASH} ${E2E}/sbuf_buffered.sh ${MRR_BIN}
  $<TARGET_FILE:mrrprog_sbuf_open> $<TARGET_FILE:mrrprog_sbuf_pipe>
  $<TARGET_FILE:mrrprog_sbuf_realpath>)
set_tests_properties(sbuf/buffered PROPERTIES LABELS e2e TIMEOUT 240)
# rt_sigaction runs untraced but for the timer signals (not the buffer's
# doing: mrr's seccomp filter), with the buffer and with -n.
add_test(NAME sbuf/sigaction_untraced COMMAND ${MRR_BASH}
  ${E2E}/sigaction_untraced.sh ${MRR_BIN}
  $<TARGET_FILE:mrrprog_sigaction_untraced>)
set_tests_properties(sbuf/sigaction_untraced PROPERTIES LABELS e2e TIMEOUT 240)
# A forged buffered mprotect (the map disagrees) stops the recording.
add_executable(mrrhostile_sbuf_forge_mprotect ${CMAKE_SOURCE_DIR}/tests/hostile/sbuf_forge_mprotect.c)
set_target_properties(mrrhostile_sbuf_forge_mprotect PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/hostile OUTPUT_NAME sbuf_forge_mprotect)
add_test(NAME sbuf/forge_mprotect COMMAND ${MRR_BASH} ${E2E}/sbuf_forge.sh ${MRR_BIN}
  $<TARGET_FILE:mrrhostile_sbuf_forge_mprotect>)
set_tests_properties(sbuf/forge_mprotect PROPERTIES LABELS e2e TIMEOUT 60)
# A held signal's stop flushes nothing: each flush comes right before an
# event of its task (tests/programs/sbuf_flush_deferred).
add_test(NAME sbuf/flush_before_event COMMAND ${MRR_BASH}
  ${E2E}/sbuf_flush_once.sh ${MRR_BIN} $<TARGET_FILE:mrrprog_sbuf_flush_deferred>)
set_tests_properties(sbuf/flush_before_event PROPERTIES LABELS e2e TIMEOUT 300)
