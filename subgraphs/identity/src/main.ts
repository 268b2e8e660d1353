import { runStandalone } from '@gateway/federation';
import { start } from './service';

void runStandalone('identity', 4002, start);
