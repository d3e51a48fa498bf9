// Appended inside the generated module (--post-js): the JavaScript face of bindings.cpp, the
// interface pplan.d.ts describes. Strings cross as UTF-8 in the module's memory.
Module['handleRequest'] = function (requestJson) {
  var length = lengthBytesUTF8(requestJson);
  var input = _malloc(length + 1);
  stringToUTF8(requestJson, input, length + 1);
  var output = _pplan_handle_request(input, length);
  _free(input);
  if (!output) throw new Error('pplan: out of memory');
  var text = UTF8ToString(output);
  _pplan_free(output);
  return text;
};
Module['version'] = function () {
  return UTF8ToString(_pplan_version());
};
