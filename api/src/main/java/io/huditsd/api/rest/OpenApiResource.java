package io.huditsd.api.rest;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Serves the committed OpenAPI document of this API. */
@Path("/api/v1/openapi.yaml")
public final class OpenApiResource {
  /** Classpath location of the document; docs/api.md points at the same file in the source tree. */
  public static final String DOCUMENT = "/io/huditsd/api/openapi.yaml";

  private final String document;

  public OpenApiResource() {
    try (InputStream in = OpenApiResource.class.getResourceAsStream(DOCUMENT)) {
      if (in == null) {
        throw new IllegalStateException("OpenAPI document " + DOCUMENT + " is missing from the class path");
      }
      document = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @GET
  @Produces("application/yaml")
  public String get() {
    return document;
  }
}
