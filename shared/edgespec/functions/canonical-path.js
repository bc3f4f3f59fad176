// canonical-path: viewer-request function of the redirect behaviour
// (runtime cloudfront-js-2.0). It answers a path holding a "%" as the web
// ACL's canonical-path rule does when there is no web ACL: a function sees
// the URI as the viewer sent it, still percent-encoded
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/functions-event-structure.html),
// while the HTTP API origin would decode it and answer a redirect CloudFront
// caches under that spelling, out of reach of the code's invalidations.
// The body is shared/edgespec NonCanonicalPathBody; a test keeps them equal.
function handler(event) {
  if (event.request.uri.indexOf('%') === -1) {
    return event.request;
  }
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
