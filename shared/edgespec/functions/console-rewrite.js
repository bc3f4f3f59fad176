// The console's viewer-request function: /console answers a 301 to
// /console/ (the page's relative links need the slash) and /console/ is
// index.html, since S3 has no directory index behind an origin access
// control. https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/example-function-add-index.html
function handler(event) {
  var r = event.request;
  if (r.uri === '/console') {
    return { statusCode: 301, statusDescription: 'Moved Permanently',
      headers: { location: { value: '/console/' }, 'cache-control': { value: 'no-store' } } };
  }
  if (r.uri === '/console/') {
    r.uri = '/console/index.html';
  }
  return r;
}
