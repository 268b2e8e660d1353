import type { FetchOptions } from 'openapi-fetch';
import type {
  HttpMethod,
  PathsWithMethod,
  RequiredKeysOf,
  ResponseObjectMap,
  SuccessResponse,
} from 'openapi-typescript-helpers';
import type { paths } from './generated/schema';

/** The media type the client speaks (pages that also answer HTML are read as JSON). */
export type Json = 'application/json';

/** The JSON body of an operation's success; void for one that answers 204. */
export type ResponseData<Operation> = Success<ResponseObjectMap<Operation>>;
type Success<Responses> =
  Responses extends Record<string | number, any>
    ? [SuccessResponse<Responses, Json>] extends [never]
      ? void
      : SuccessResponse<Responses, Json>
    : never;

/** The options of a call (params, body, headers, signal…), as openapi-fetch takes them. */
export type CallOptions<Path extends keyof paths, Method extends HttpMethod> = FetchOptions<
  paths[Path] extends Record<Method, infer Operation> ? Operation : never
>;

/** The options argument: required when the operation has required path, query or body fields. */
export type OptionsArgument<Options> = RequiredKeysOf<Options> extends never ? [options?: Options] : [options: Options];

/** One HTTP method of the API: the path picks the operation, its options and its answer's type. */
export type CallMethod<Method extends HttpMethod> = <Path extends PathsWithMethod<paths, Method>>(
  path: Path,
  ...options: OptionsArgument<CallOptions<Path, Method>>
) => Promise<ResponseData<paths[Path][Method]>>;
