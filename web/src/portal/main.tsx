import { render } from "preact";
import { Portal, tokenFromPath } from "./portal";
import "../styles.css";
import "./portal.css";

const root = document.getElementById("root");
if (root) render(<Portal token={tokenFromPath(location.pathname)} />, root);
