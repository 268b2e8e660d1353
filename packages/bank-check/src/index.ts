export { runBankCheck, wrongOtp } from './check';
export { formatReport } from './report';
export { runCli, USAGE, parseCliArgs } from './cli';
export {
  ANSWER_LIMIT_MS,
  DEFAULT_AMOUNT,
  DEFAULT_TIMEOUT_MS,
  STEPS,
  type BankCheckOptions,
  type BankCheckResult,
  type CallTiming,
  type StepId,
  type StepResult,
  type StepStatus,
} from './types';
