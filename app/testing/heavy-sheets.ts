// Spreadsheets that are small and slow (issue 44 item 5): what a budget of engine time has to end.
//   heavyConditionalFormats(n)  n conditional formats whose formula reads 1,000 cells, over 1,040 cells each
//   slowFormulas(n)             n formulas without a cached result, each reading a whole column (a million cells)

import { strToU8, zipSync } from "fflate";
const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
function xlsx(sheetBody: string): Uint8Array {
  const sheet = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${REL}">${sheetBody}</worksheet>`;
  return zipSync({
    "[Content_Types].xml": strToU8(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`),
    "_rels/.rels": strToU8(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`),
    "xl/workbook.xml": strToU8(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${REL}"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`),
    "xl/_rels/workbook.xml.rels": strToU8(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${REL}/styles" Target="styles.xml"/></Relationships>`),
    "xl/styles.xml": strToU8(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border/></borders><cellStyleXfs count="1"><xf/></cellStyleXfs><cellXfs count="1"><xf xfId="0"/></cellXfs><dxfs count="1"><dxf><fill><patternFill><bgColor rgb="FFFF0000"/></patternFill></fill></dxf></dxfs></styleSheet>`),
    "xl/worksheets/sheet1.xml": strToU8(sheet),
  });
}
export function heavyConditionalFormats(n: number): Uint8Array {
  const rows: string[] = [];
  for (let r = 1; r <= 50; r++) rows.push(`<row r="${r}"><c r="A${r}"><v>${r}</v></c></row>`);
  const cf: string[] = [];
  for (let i = 0; i < n; i++) cf.push(`<conditionalFormatting sqref="A${(i % 1000) + 1}:Z${(i % 1000) + 40}"><cfRule type="expression" dxfId="0" priority="${i + 1}"><formula>SUMPRODUCT(($A$1:$A$1000&gt;${i})*1)&gt;0</formula></cfRule></conditionalFormatting>`);
  return xlsx(`<sheetData>${rows.join("")}</sheetData>${cf.join("")}`);
}
export function slowFormulas(n: number, expr = "SUMPRODUCT(ROW(A1:A1048576)*1)"): Uint8Array {
  const rows: string[] = [];
  for (let r = 1; r <= n; r++) rows.push(`<row r="${r}"><c r="A${r}"><f>${expr}</f></c></row>`);
  return xlsx(`<sheetData>${rows.join("")}</sheetData>`);
}
