// The offline HTML report: draws the charts of the answer embedded in the page
// (<script id="gpuplan-data" type="application/json">, written by report/html_report.cpp).
import { renderReport } from "./charts.js";

const data = JSON.parse(document.getElementById("gpuplan-data").textContent);
renderReport(document.getElementById("report"), data);
