'use strict';
// Swagger UI on the daemon's own OpenAPI document; the token entered in the console (session storage) is offered
// as the bearer credential, so "Try it out" works the same way the console does.
window.addEventListener('DOMContentLoaded', () => {
  const ui = window.SwaggerUIBundle({
    url: '/api/v1/openapi.yaml',
    dom_id: '#swagger-ui',
    deepLinking: false,
    validatorUrl: null,
  });
  const token = window.sessionStorage.getItem('tsd.token');
  if (token) {
    ui.preauthorizeApiKey('bearer', token);
  }
});
