import { runStandalone } from '@gateway/federation';
import { start } from './service';

void runStandalone('payments', 4003, start);
