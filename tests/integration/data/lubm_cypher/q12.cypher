// LUBM Query 12: chairs (heads of departments, by inference) and the department of University0 they work for.
MATCH (x:Chair)-[:worksFor]->(y:Department)-[:subOrganizationOf]->(:Resource {uri: 'http://www.University0.edu'})
RETURN x AS X, y AS Y
