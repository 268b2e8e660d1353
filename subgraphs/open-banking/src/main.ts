import { runStandalone } from '@gateway/federation';
import { openBankingEnv } from './config';
import { start } from './service';

void runStandalone('open-banking', 4004, start, openBankingEnv);
