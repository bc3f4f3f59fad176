import cf from 'cloudfront';
// version-key: viewer-request function of the redirect behaviour when the
// deployment keys its cache on link versions (context edgeVersionKeys;
// runtime cloudfront-js-2.0, with the distribution's key value store
// associated). It is the canonical-path function and one read more, since
// a behaviour takes one viewer-request function: a path holding a "%" is
// refused as canonical-path refuses it; any other path gets, in the
// x-link-version header, the version the key value store holds for it,
// "0" when it holds none (a link never changed, or not for a day). The
// redirect cache policy keys on that header, so a changed link's next
// request is a new cache key and reaches the origin: manage puts a new
// version (PutKey) instead of invalidating the path. The URI and the query
// stay as the viewer sent them, so the redirect origin sees the code path
// it always did and query-forward the visitor's query.
// Functions may change request headers to shape the cache key
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/function-code-choose-purpose.html);
// the store is read with the helper methods
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/functions-custom-methods.html,
// https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/kvs-with-functions.html),
// whose get() fails for a key the store does not hold.
// The names are shared/edgespec VersionHeader and NonCanonicalPathBody; a
// test keeps them equal.
var kvsHandle = cf.kvs();
var HEADER = 'x-link-version';

async function handler(event) {
  var request = event.request;
  if (request.uri.indexOf('%') !== -1) {
    return {
      statusCode: 400,
      statusDescription: 'Bad Request',
      headers: {
        'content-type': { value: 'text/plain' },
        'cache-control': { value: 'no-store' }
      },
      body: { encoding: 'text', data: "This short link is spelt with percent-encoding; use it as it was given.\n" }
    };
  }
  var version = '0';
  try {
    version = await kvsHandle.get(request.uri);
  } catch (e) {
    version = '0';
  }
  request.headers[HEADER] = { value: version };
  return request;
}
