// Starts Swagger UI on the page servicekit.docs writes: a file rather than an inline
// script, which the Content-Security-Policy nginx sends would not run. The page names the
// OpenAPI document in #swagger-ui's data-openapi-url; the options are FastAPI's own.
"use strict";

window.ui = SwaggerUIBundle({
  url: document.getElementById("swagger-ui").dataset.openapiUrl,
  dom_id: "#swagger-ui",
  layout: "BaseLayout",
  deepLinking: true,
  showExtensions: true,
  showCommonExtensions: true,
  presets: [SwaggerUIBundle.presets.apis],
});
