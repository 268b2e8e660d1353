import { runStandalone } from '@gateway/federation';
import { paymentsEnv } from './config';
import { start } from './service';

void runStandalone('payments', 4003, start, paymentsEnv);
