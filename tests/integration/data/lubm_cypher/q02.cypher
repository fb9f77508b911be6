// LUBM Query 2: graduate students who are members of a department of the university they took their first
// degree from (a triangle).
MATCH (x:GraduateStudent)-[:memberOf]->(z:Department)-[:subOrganizationOf]->(y:University),
      (x)-[:undergraduateDegreeFrom]->(y)
RETURN x AS X, y AS Y, z AS Z
