// YASGUI pointed at this server's SPARQL endpoint, with every feature that calls an outside service off.
(function () {
  "use strict";
  // this server's /sparql, wherever the page is mounted (YASGUI needs an absolute URL)
  var endpoint = new URL("sparql", window.location.href).href;
  var Yasqe = Yasgui.Yasqe;
  // "property" and "class" ask lov.linkeddata.es; keep the local ones (bundled prefixes, query variables).
  // The arrays are replaced, not passed in the config: YASGUI merges config arrays index by index.
  delete Yasqe.Autocompleters.property;
  delete Yasqe.Autocompleters["class"];
  Yasqe.defaults.autocompleters = ["variables", "prefixes"];
  Yasqe.defaults.prefixCcApi = null; // bundled prefix list, never prefix.cc
  Yasgui.defaults.yasqe = Yasqe.defaults;
  new Yasgui(document.getElementById("yasgui"), {
    requestConfig: { endpoint: endpoint, method: "POST" },
    // the endpoint list offers only this server (the default lists dbpedia.org and wikidata.org)
    endpointCatalogueOptions: {
      getData: function () { return [{ endpoint: endpoint }]; },
      keys: [],
    },
    copyEndpointOnNewTab: true,
    corsProxy: undefined,
    // nothing kept in localStorage: every visit starts on this server's endpoint, not a remembered one
    persistenceId: null,
    yasqe: {
      value: "SELECT ?s ?p ?o WHERE {\n  ?s ?p ?o\n} LIMIT 25",
      prefixCcApi: null,
      createShortLink: undefined,
    },
  });
})();
