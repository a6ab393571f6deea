'use strict';
// Swagger UI on the daemon's own OpenAPI document. "Try it out" goes to this daemon whatever the document's servers
// say, with the token entered in the console (session storage) unless Authorize set another.
window.addEventListener('DOMContentLoaded', () => {
  window.SwaggerUIBundle({
    url: '/api/v1/openapi.yaml',
    dom_id: '#swagger-ui',
    deepLinking: false,
    validatorUrl: null,
    requestInterceptor: request => {
      const url = new URL(request.url, window.location.href);
      request.url = window.location.origin + url.pathname + url.search;
      const token = window.sessionStorage.getItem('tsd.token');
      if (token && !request.headers.Authorization) {
        request.headers.Authorization = 'Bearer ' + token;
      }
      return request;
    },
  });
});
