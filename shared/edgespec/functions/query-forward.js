// query-forward: viewer-response function of the redirect behaviour
// (runtime cloudfront-js-2.0). It runs on every answer, from the cache or
// the origin, so the visitor's query reaches the destination while the
// cache key stays the path alone: CloudFront keeps one redirect per code
// and this function merges each visitor's query into its Location.
//
// Only a 301, 302, 303, 307 or 308 with a Location is changed; any other
// answer (the password form, CloudFront does not run the function on 400
// and above) goes out as it came. The redirect origin says how its link
// wants the query in the x-query-forward header, which never reaches the
// viewer: absent, the visitor's parameters are added and where a name is
// in both the destination's wins; "visitor", the visitor's win; "off",
// nothing is added. The names are shared/edgespec QueryForwardHeader and
// its values; a test keeps them equal.
//
// The visitor's parameters keep their encoding as sent (the event's
// querystring values are not decoded), repeated names all of their values
// in order; names are compared decoded, so "utm%5Fsource" is "utm_source".
// The destination's fragment stays after the query.
var HEADER = 'x-query-forward';
var REDIRECTS = { 301: true, 302: true, 303: true, 307: true, 308: true };

function handler(event) {
  var response = event.response;
  var mode = response.headers[HEADER];
  if (mode) {
    delete response.headers[HEADER];
    mode = mode.value;
  } else {
    mode = 'destination';
  }
  var location = response.headers.location;
  if (mode === 'off' || !REDIRECTS[response.statusCode] || !location) {
    return response;
  }
  var visitor = visitorPairs(event.request.querystring);
  if (visitor.length === 0) {
    return response;
  }
  location.value = merge(location.value, visitor, mode === 'visitor');
  return response;
}

// visitorPairs are the visitor's parameters as [name, "name=value"].
function visitorPairs(qs) {
  var out = [];
  for (var name in qs) {
    var p = qs[name];
    var values = p.multiValue && p.multiValue.length > 0 ? p.multiValue : [p];
    for (var i = 0; i < values.length; i++) {
      out.push([decodeName(name), name + '=' + values[i].value]);
    }
  }
  return out;
}

// merge adds the visitor's pairs to url's query, before its fragment.
function merge(url, visitor, visitorWins) {
  var fragment = '';
  var hash = url.indexOf('#');
  if (hash >= 0) {
    fragment = url.substring(hash);
    url = url.substring(0, hash);
  }
  var query = '';
  var mark = url.indexOf('?');
  if (mark >= 0) {
    query = url.substring(mark + 1);
    url = url.substring(0, mark);
  }
  var dest = query === '' ? [] : query.split('&');
  var destNames = {};
  var visitorNames = {};
  var i;
  for (i = 0; i < dest.length; i++) {
    destNames[decodeName(dest[i].split('=')[0])] = true;
  }
  for (i = 0; i < visitor.length; i++) {
    visitorNames[visitor[i][0]] = true;
  }
  var parts = [];
  for (i = 0; i < dest.length; i++) {
    if (dest[i] !== '' && !(visitorWins && visitorNames[decodeName(dest[i].split('=')[0])])) {
      parts.push(dest[i]);
    }
  }
  for (i = 0; i < visitor.length; i++) {
    if (visitorWins || !destNames[visitor[i][0]]) {
      parts.push(visitor[i][1]);
    }
  }
  return url + (parts.length > 0 ? '?' + parts.join('&') : '') + fragment;
}

// decodeName is a parameter's name as a form decodes it; a malformed
// escape is compared as it is.
function decodeName(name) {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch (e) {
    return name;
  }
}
