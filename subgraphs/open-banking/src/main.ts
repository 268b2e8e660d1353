import { runStandalone } from '@gateway/federation';
import { start } from './service';

void runStandalone('open-banking', 4004, start);
