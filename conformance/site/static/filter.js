// Filters the matrix rows by family, level, capability and verdict; the state lives in the URL query.
(function () {
  "use strict";
  var form = document.getElementById("filters");
  var rows = document.querySelectorAll("#matrix tbody tr");
  var names = ["family", "level", "capability", "verdict"];
  function state() {
    var params = new URLSearchParams(window.location.search), out = {};
    names.forEach(function (n) { out[n] = params.get(n) || ""; });
    return out;
  }
  function apply(s) {
    var shown = 0;
    rows.forEach(function (row) {
      var ok = (!s.family || row.dataset.family === s.family) &&
        (!s.level || row.dataset.level === s.level) &&
        (!s.capability || row.dataset.capabilities.split(" ").indexOf(s.capability) >= 0) &&
        (!s.verdict || row.dataset.verdicts.split(" ").indexOf(s.verdict) >= 0);
      row.classList.toggle("hidden", !ok);
      if (ok) { shown += 1; }
    });
    document.getElementById("shown").textContent = shown + " of " + rows.length + " cases shown";
  }
  var s = state();
  names.forEach(function (n) { form.elements[n].value = s[n]; });
  apply(s);
  form.addEventListener("change", function () {
    var params = new URLSearchParams();
    names.forEach(function (n) { if (form.elements[n].value) { params.set(n, form.elements[n].value); } });
    var query = params.toString();
    window.history.replaceState(null, "", query ? "?" + query : window.location.pathname);
    apply(state());
  });
  form.addEventListener("submit", function (event) { event.preventDefault(); });
})();
