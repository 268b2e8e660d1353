import { runStandalone } from '@gateway/federation';
import { start } from './service';

void runStandalone('banks', 4001, start);
